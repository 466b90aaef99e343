//go:build unix

package proctest

// This file lists the processes a tool started, and their own, as ps(1)
// shows them, for the tests of how a tool stops: a process that a tool's
// child started in a group of its own (Delve's debuggee) is no member of
// any group the test knows, and is found as a descendant.

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Proc is one process as ps lists it.
type Proc struct {
	PID, PPID, PGID int
	Command         string
}

func (p Proc) String() string { return strconv.Itoa(p.PID) + " " + p.Command }

// ps lists the processes of this user that have not ended: a zombie has
// ended, and waits only for its parent to read its status.
func ps(tb testing.TB) []Proc {
	tb.Helper()
	out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=,pgid=,stat=,comm=").Output()
	if err != nil {
		tb.Fatalf("ps: %v", err)
	}
	var procs []Proc
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) < 5 || strings.HasPrefix(f[3], "Z") {
			continue
		}
		var p Proc
		p.PID, _ = strconv.Atoi(f[0])
		p.PPID, _ = strconv.Atoi(f[1])
		p.PGID, _ = strconv.Atoi(f[2])
		p.Command = strings.Join(f[4:], " ")
		procs = append(procs, p)
	}
	return procs
}

// Family is pid and every process it started, and theirs, that runs now.
func Family(tb testing.TB, pid int) []Proc {
	tb.Helper()
	all := ps(tb)
	var family []Proc
	for ids := []int{pid}; len(ids) > 0; {
		var next []int
		for _, p := range all {
			if slices.Contains(ids, p.PID) {
				family = append(family, p)
			}
			if slices.Contains(ids, p.PPID) {
				next = append(next, p.PID)
			}
		}
		ids = next
	}
	return family
}

// Running waits until none of procs runs and no process is left in the
// group pgid (0: none to check), or until ctx ends, and returns the ones
// still running then.
func Running(ctx context.Context, tb testing.TB, procs []Proc, pgid int) []Proc {
	tb.Helper()
	for {
		var left []Proc
		for _, p := range ps(tb) {
			if pgid != 0 && p.PGID == pgid || slices.ContainsFunc(procs, func(q Proc) bool { return q.PID == p.PID }) {
				left = append(left, p)
			}
		}
		if len(left) == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return left
		case <-time.After(50 * time.Millisecond):
		}
	}
}
