//go:build unix

package startapi

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/proctest"
	"github.com/plantstore/plantstore/tools/delve"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// make start-api DEBUG=CreatePlantFunction as a terminal runs it: make and
// the tool in the terminal's foreground process group, a request held by
// the function that waits under Delve for a debugger. One Ctrl-C (SIGINT
// to the whole group, as the terminal sends it) ends make, the tool,
// Delve, its debuggee, dynalite and the other bootstraps, and leaves no
// temporary folder.
func TestOneCtrlCEndsADebugSession(t *testing.T) {
	t.Parallel()
	dlv := delve.Dlv(t, root)
	boots := debugBootstraps(t)
	tool, banner := startInGroup(t, root, boots, delve.Flags("CreatePlantFunction", proctest.FreeAddr(t), dlv)...)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // only catches a hang
	defer cancel()
	post(ctx, banner.URL, banner.Token, `{"id":7,"name":"Held"}`)
	tool.Stderr.WaitFor(t, "API server listening at:", 1) // the debuggee waits for a debugger
	// A loaded machine can list Delve before the debuggee it starts: look
	// again until both are there, or the test's bound ends.
	var family []proctest.Proc
	for held := false; !held; {
		family = proctest.Family(t, tool.Cmd.Process.Pid)
		var dlvPID int
		for _, p := range family {
			if strings.HasPrefix(p.Command, "dlv") {
				dlvPID = p.PID
			}
		}
		for _, p := range family {
			held = held || p.PPID == dlvPID && dlvPID != 0
		}
		if held {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no debuggee under Delve among %v\n%s", family, tool.Stderr.Tail())
		case <-time.After(50 * time.Millisecond):
		}
	}
	tool.Signal(t, syscall.SIGINT)
	ended(t, tool, "one Ctrl-C", family)
}

// A Ctrl-C during a WATCH=1 rebuild, while the go command compiles, ends
// the build and leaves nothing of it: neither the reload's build-N folder
// (make went on writing it after the clean-up) nor the go command's work
// folder (it leaves it when interrupted). The signal reaches the tool
// alone, as the terminal's does (the build runs in a group of its own),
// and as kill -INT or an editor's stop button sends it.
func TestACtrlCDuringARebuildLeavesNoBuild(t *testing.T) {
	t.Parallel()
	tree := watchtest.CopyTree(t)
	boots := watchtest.Build(t, tree, []string{"AuthorizerFunction", "CreatePlantFunction"}, "")
	tool, _ := startInGroup(t, tree, boots, "-watch")
	// A message no build has compiled yet: the go command compiles.
	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`,
		fmt.Sprintf(`"the body is no JSON (at byte %%d, %d)"`, time.Now().UnixNano()))
	family := tool.Compiling(t)
	pid := 0 // the tool, which make started
	for _, p := range family {
		if p.PPID == tool.Cmd.Process.Pid {
			pid = p.PID
		}
	}
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	ended(t, tool, "SIGINT during a rebuild", family)
}

// startInGroup runs make start-api's recipe (exec of the tool) with make,
// as a terminal runs a job, on the template of tree, the bootstraps in
// boots and more flags, and returns it and the tool's banner once the tool
// listens. The tool is this test binary running main (TestMain).
func startInGroup(t *testing.T, tree, boots string, flags ...string) (*proctest.Job, devserver.Banner) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// TMPDIR short: the emulators' Unix sockets live below it.
	tmp, err := os.MkdirTemp("", "sig")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	args := append([]string{self, "start-api", "-p", "0", "--build-dir", boots, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(tree, "template.yaml"),
		"-n", filepath.Join(tree, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite")}, flags...)
	makefile := filepath.Join(t.TempDir(), "Makefile")
	if err := os.WriteFile(makefile, []byte("start-api:\n\t@exec '"+strings.Join(args, "' '")+"'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("make", "-s", "-f", makefile)
	cmd.Env = append(os.Environ(), runMain+"=1")
	for k, v := range apiShell(t) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	tool := proctest.StartJob(t, cmd, tmp)
	return tool, tool.Stdout.Banner(t)
}

// ended fails t unless make, the tool and every process of family ended
// within the bound of Job.Ended, without the tool's last resort, and left
// no file.
func ended(t *testing.T, tool *proctest.Job, after string, family []proctest.Proc) {
	t.Helper()
	t.Logf("make: %v", tool.Ended(t, after, family))
	if strings.Contains(tool.Stderr.String(), "stopped at once") {
		t.Errorf("start-api ended only by its last resort:\n%s", tool.Stderr.Tail())
	}
}
