//go:build unix

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/proctest"
	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/tools/watch/watchtest"
)

// make run TRACE=1 in a terminal that is closed: SIGHUP, which the shell
// sends to the whole job, stops it as Ctrl-C does, and its build of the
// local API (16 MB) does not stay in its temporary folder.
func TestAHangupLeavesNoBuild(t *testing.T) {
	t.Parallel()
	tool := startInGroup(t, srctree.Path(), nil)
	family := proctest.Family(t, tool.cmd.Process.Pid)
	if err := syscall.Kill(-tool.cmd.Process.Pid, syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	tool.ended(t, "SIGHUP", family)
}

// make run WATCH=1: a Ctrl-C (SIGINT to the whole job) while a rebuild's go
// command compiles leaves nothing of the build, not even the go command's
// work folder, which it leaves when interrupted (golang/go#25808).
func TestACtrlCDuringARebuildLeavesNoBuild(t *testing.T) {
	t.Parallel()
	tree := watchtest.CopyTree(t)
	// -trimpath: the copy's packages are in the build cache already (the
	// tests' builds of cmd/localapi use it), so only the edit compiles.
	tool := startInGroup(t, tree, []string{"GOFLAGS=-trimpath"}, "-watch")
	// A message no build has compiled yet: the go command compiles.
	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "errors.go"), `"a bearer token is required"`,
		fmt.Sprintf(`"a bearer token is required (%d)"`, time.Now().UnixNano()))
	var family []proctest.Proc
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // the bound only catches a hang
		family = proctest.Family(t, tool.cmd.Process.Pid)
		if compiling(family) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rebuild within a minute of the edit:\n%s", tool.stdout.String())
		}
	}
	if err := syscall.Kill(-tool.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	tool.ended(t, "a Ctrl-C during a rebuild", family)
}

// compiling says whether a go command among family compiles or links.
func compiling(family []proctest.Proc) bool {
	for _, p := range family {
		if p.Command == "compile" || p.Command == "link" {
			return true
		}
	}
	return false
}

// groupTool is make run TRACE=1 (or WATCH=1) in a process group of its own,
// as a terminal runs a job: this test binary running main (TestMain).
type groupTool struct {
	cmd            *exec.Cmd
	tmp            string // its TMPDIR
	stdout, stderr *proctest.Output
	exited         chan error
}

// startInGroup runs the tool at root, as make does, with env added to its
// environment and flags, and returns once it listens.
func startInGroup(t *testing.T, root string, env []string, flags ...string) *groupTool {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	g := &groupTool{cmd: exec.Command(self, flags...), tmp: t.TempDir(), stdout: &proctest.Output{}, stderr: &proctest.Output{}, exited: make(chan error, 1)}
	g.cmd.Dir = root
	g.cmd.Env = append(append(os.Environ(), runMain+"=1", "PORT=0", "TMPDIR="+g.tmp, "STORE_PATH="+filepath.Join(t.TempDir(), "plants.db")), env...)
	g.cmd.Stdout, g.cmd.Stderr = g.stdout, g.stderr
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the terminal's job
	g.cmd.WaitDelay = time.Second                           // a process left behind keeps the output open
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.exited <- g.cmd.Wait() }()
	t.Cleanup(func() {
		for _, p := range proctest.Family(t, g.cmd.Process.Pid) {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
	})
	g.stdout.Banner(t)
	return g
}

// ended fails t unless, within 10 s of the signal (a failure bound, not a
// measure), every process of family and of the group has ended, the tool
// with status 0, and TMPDIR is empty.
func (g *groupTool) ended(t *testing.T, after string, family []proctest.Proc) {
	t.Helper()
	bound, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if left := proctest.Running(bound, t, family, g.cmd.Process.Pid); left != nil {
		t.Fatalf("10s after %s these still run: %v\n%s", after, left, g.stderr.String())
	}
	select {
	case err := <-g.exited:
		if err != nil {
			t.Errorf("after %s: %v, want exit status 0\n%s", after, err, g.stderr.String())
		}
	case <-bound.Done():
		t.Fatalf("still running 10s after %s", after)
	}
	var left []string
	filepath.WalkDir(g.tmp, func(path string, _ os.DirEntry, err error) error {
		if path != g.tmp {
			left = append(left, path[len(g.tmp):])
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("left in TMPDIR after %s: %v", after, left)
	}
}
