//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/proctest"
	"github.com/plantstore/plantstore/internal/srctree"
)

// make run TRACE=1 in a terminal that is closed: SIGHUP, which the shell
// sends to the whole job, stops it as Ctrl-C does, and its build of the
// local API (16 MB) does not stay in its temporary folder. The tool is
// this test binary running main (TestMain).
func TestAHangupLeavesNoBuild(t *testing.T) {
	t.Parallel()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	var stdout, stderr proctest.Output
	cmd := exec.Command(self)
	cmd.Dir = srctree.Path() // make runs it at the root
	cmd.Env = append(os.Environ(), runMain+"=1", "PORT=0", "TMPDIR="+tmp, "STORE_PATH="+filepath.Join(t.TempDir(), "plants.db"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the terminal's job
	cmd.WaitDelay = time.Second                           // a process left behind keeps the output open
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		for _, p := range proctest.Family(t, cmd.Process.Pid) {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
	})
	stdout.Banner(t)
	family := proctest.Family(t, cmd.Process.Pid)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	bound, stop := context.WithTimeout(context.Background(), 10*time.Second) // a failure bound, not a measure
	defer stop()
	if left := proctest.Running(bound, t, family, cmd.Process.Pid); left != nil {
		t.Fatalf("10s after SIGHUP these still run: %v\n%s", left, stderr.String())
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("after SIGHUP: %v, want exit status 0\n%s", err, stderr.String())
		}
	case <-bound.Done():
		t.Fatal("still running 10s after SIGHUP")
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("left in TMPDIR: %v", names)
	}
}
