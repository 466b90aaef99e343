//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/proctest"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// make run TRACE=1 in a terminal that is closed: SIGHUP, which the shell
// sends to the whole job, stops it as Ctrl-C does, and its build of the
// local API does not stay in its temporary folder.
func TestAHangupLeavesNoBuild(t *testing.T) {
	t.Parallel()
	tool := startInGroup(t, srctree.Path(), nil)
	family := proctest.Family(t, tool.Cmd.Process.Pid)
	tool.Signal(t, syscall.SIGHUP)
	ended(t, tool, "SIGHUP", family)
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
	family := tool.Compiling(t)
	tool.Signal(t, syscall.SIGINT)
	ended(t, tool, "a Ctrl-C during a rebuild", family)
}

// startInGroup runs make run TRACE=1 (or WATCH=1) at root as a terminal
// runs a job, with env added to its environment and flags, and returns
// once it listens: this test binary running main (TestMain).
func startInGroup(t *testing.T, root string, env []string, flags ...string) *proctest.Job {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, flags...)
	cmd.Dir = root
	cmd.Env = append(append(os.Environ(), runMain+"=1", "PORT=0", "STORE_PATH="+filepath.Join(t.TempDir(), "plants.db")), env...)
	tool := proctest.StartJob(t, cmd, t.TempDir())
	tool.Stdout.Banner(t)
	return tool
}

// ended fails t unless the tool and every process of family ended within
// the bound of Job.Ended, the tool with status 0, and left no file.
func ended(t *testing.T, tool *proctest.Job, after string, family []proctest.Proc) {
	t.Helper()
	if err := tool.Ended(t, after, family); err != nil {
		t.Errorf("after %s: %v, want exit status 0\n%s", after, err, tool.Stderr.Tail())
	}
}
