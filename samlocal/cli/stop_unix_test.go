//go:build unix

package cli

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/proctest"
)

// stopsItsProcesses stops a server that runs in this test process with
// stop, and fails t when a process it started (a function, the emulator)
// outlives it. No other test runs beside it: the test's children are the
// server's.
func stopsItsProcesses(t *testing.T, stop func()) {
	t.Helper()
	self := os.Getpid()
	var started []proctest.Proc
	for _, p := range proctest.Family(t, self) {
		if p.PID != self && p.PPID == self && p.Command != "ps" {
			started = append(started, p)
		}
	}
	if len(started) == 0 {
		t.Error("the server runs no process to stop")
	}
	stop()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a failure bound, not a measure
	defer cancel()
	if left := proctest.Running(ctx, t, started, 0); len(left) > 0 {
		t.Errorf("still running after the server stopped: %v (it started %v)", left, started)
	}
}
