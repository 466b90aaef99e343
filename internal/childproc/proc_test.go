package childproc

import (
	"os/exec"
	"runtime"
	"testing"
	"time"
)

func TestStopAllEndsChildren(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sleep(1)")
	}
	cmd := exec.Command("sleep", "60")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	StopAll()
	select {
	case err := <-done:
		if err == nil {
			t.Error("sleep 60 exited 0; want it killed")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("StopAll did not end the child within 30s")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(running) != 0 {
		t.Errorf("%d children still recorded after StopAll", len(running))
	}
}
