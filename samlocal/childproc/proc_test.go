package childproc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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

// Run interrupts the child's group when its context ends, as the
// terminal's Ctrl-C would (a child that cleans up on SIGINT does), and
// returns once the child has exited.
func TestRunInterruptsWhenItsContextEnds(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh(1) and SIGINT")
	}
	t.Parallel()
	dir := t.TempDir()
	ready, mark := filepath.Join(dir, "ready"), filepath.Join(dir, "interrupted")
	cmd := exec.Command("sh", "-c", `trap 'touch "$1"; exit 0' INT; touch "$0"; while :; do sleep 0.05; done`, ready, mark)
	if err := cancelWhenReady(t, cmd, ready); err != nil {
		t.Errorf("Run = %v, want the child's clean exit on SIGINT", err)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the child was not interrupted: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if _, ok := running[cmd]; ok {
		t.Error("Run left the child recorded")
	}
}

// A group that a SIGINT does not stop (here it ignores it; a shell can lose
// one) is killed interruptGrace later, and Run returns.
func TestRunKillsAGroupItsInterruptMisses(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses sh(1) and SIGINT")
	}
	grace := interruptGrace
	interruptGrace = 100 * time.Millisecond
	t.Cleanup(func() { interruptGrace = grace })
	ready := filepath.Join(t.TempDir(), "ready")
	cmd := exec.Command("sh", "-c", `trap '' INT; touch "$0"; sleep 60`, ready)
	if err := cancelWhenReady(t, cmd, ready); err == nil {
		t.Error("Run = nil, want the kill's error")
	}
}

// cancelWhenReady runs cmd with Run, ends Run's context once the child has
// made the file ready, and returns Run's error. It fails t when the child
// does not start, or Run does not return, within 30 s (failure bounds, not
// measures).
func cancelWhenReady(t *testing.T, cmd *exec.Cmd, ready string) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- Run(ctx, cmd) }()
	bound, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	for _, err := os.Stat(ready); err != nil; _, err = os.Stat(ready) {
		select {
		case <-bound.Done():
			t.Fatal("the child did not start within 30s")
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	select {
	case err := <-ran:
		return err
	case <-bound.Done():
		t.Fatal("Run still waits 30s after its context ended")
		return nil
	}
}
