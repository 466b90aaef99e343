//go:build unix

package main

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

	"github.com/plantstore/plantstore/internal/childproc"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/internal/proctest"
	"github.com/plantstore/plantstore/tools/delve"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/watch/watchtest"
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
	boots := t.TempDir()
	for fn, bin := range map[string]string{
		"CreatePlantFunction": lambdatest.DebugBootstrap(t, "CreatePlantFunction"),
		"AuthorizerFunction":  lambdatest.Bootstrap(t, "AuthorizerFunction"),
	} {
		if err := os.MkdirAll(filepath.Join(boots, fn), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bin, filepath.Join(boots, fn, "bootstrap")); err != nil {
			t.Fatal(err)
		}
	}
	tool := startInGroup(t, root, boots, "-debug", "CreatePlantFunction", "-debug-addr", delve.FreeAddr(t), "-dlv", dlv)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // only catches a hang
	defer cancel()
	post(ctx, tool.banner.URL, tool.banner.Token, `{"id":7,"name":"Held"}`)
	tool.stderr.WaitFor(t, "API server listening at:", 1) // the debuggee waits for a debugger
	family := proctest.Family(t, tool.cmd.Process.Pid)
	var dlvPID int
	for _, p := range family {
		if strings.HasPrefix(p.Command, "dlv") {
			dlvPID = p.PID
		}
	}
	held := false
	for _, p := range family {
		held = held || p.PPID == dlvPID && dlvPID != 0
	}
	if !held {
		t.Fatalf("no debuggee under Delve among %v\n%s", family, tool.stderr.String())
	}
	if err := syscall.Kill(-tool.cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	tool.ended(t, "one Ctrl-C", family)
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
	boots := t.TempDir()
	if out, err := localfn.Build(context.Background(), tree, boots, []string{"AuthorizerFunction", "CreatePlantFunction"}, ""); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	tool := startInGroup(t, tree, boots, "-watch")
	// A message no build has compiled yet: the go command compiles.
	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`,
		fmt.Sprintf(`"the body is no JSON (at byte %%d, %d)"`, time.Now().UnixNano()))
	var family []proctest.Proc
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) { // the bound only catches a hang
		family = proctest.Family(t, tool.cmd.Process.Pid)
		if building(family) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no rebuild within a minute of the edit:\n%s", tool.stdout.String())
		}
	}
	pid := 0 // the tool, which make started
	for _, p := range family {
		if p.PPID == tool.cmd.Process.Pid {
			pid = p.PID
		}
	}
	if err := syscall.Kill(pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	tool.ended(t, "SIGINT during a rebuild", family)
}

// building says whether the go command of a rebuild compiles or links.
func building(family []proctest.Proc) bool {
	for _, p := range family {
		if p.Command == "compile" || p.Command == "link" {
			return true
		}
	}
	return false
}

// groupTool is make start-api run by make in a process group of its own,
// as a terminal runs a job.
type groupTool struct {
	cmd            *exec.Cmd
	tmp            string // its TMPDIR
	banner         childproc.Banner
	stdout, stderr *proctest.Output
	exited         chan error
}

// startInGroup runs make start-api's recipe (exec of the tool) with make,
// on the template of tree, the bootstraps in boots and more flags, and
// returns once the tool listens. The tool is this test binary running
// main (TestMain); its TMPDIR is a folder of its own.
func startInGroup(t *testing.T, tree, boots string, flags ...string) *groupTool {
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
	args := append([]string{self, "-bootstraps", boots, "-template", filepath.Join(tree, "template.yaml"),
		"-env", filepath.Join(tree, "events", "env.json"), "-data", filepath.Join(t.TempDir(), "dynalite")}, flags...)
	makefile := filepath.Join(t.TempDir(), "Makefile")
	if err := os.WriteFile(makefile, []byte("start-api:\n\t@exec '"+strings.Join(args, "' '")+"'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	g := &groupTool{cmd: exec.Command("make", "-s", "-f", makefile), tmp: tmp, stdout: &proctest.Output{}, stderr: &proctest.Output{}, exited: make(chan error, 1)}
	g.cmd.Env = append(os.Environ(), runMain+"=1", "PORT=0", "TMPDIR="+tmp)
	g.cmd.Stdout, g.cmd.Stderr = g.stdout, g.stderr
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the terminal's foreground group
	g.cmd.WaitDelay = time.Second                           // a process left behind keeps the output open
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { g.exited <- g.cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-g.cmd.Process.Pid, syscall.SIGKILL)
		for _, p := range proctest.Family(t, g.cmd.Process.Pid) {
			syscall.Kill(p.PID, syscall.SIGKILL)
		}
	})
	g.banner = g.stdout.Banner(t)
	return g
}

// ended fails t unless, within 10 s of the signal (a failure bound, not a
// measure), every process of family and of the group has ended, make
// with them, without the tool's last resort, and TMPDIR is empty.
func (g *groupTool) ended(t *testing.T, after string, family []proctest.Proc) {
	t.Helper()
	bound, stop := context.WithTimeout(context.Background(), 10*time.Second)
	defer stop()
	if left := proctest.Running(bound, t, family, g.cmd.Process.Pid); left != nil {
		t.Fatalf("10s after %s these still run: %v\nstart-api printed:\n%s\n%s", after, left, g.stdout.String(), tail(g.stderr.String()))
	}
	select {
	case err := <-g.exited:
		t.Logf("make: %v", err)
	case <-bound.Done():
		t.Fatalf("make still waits 10s after %s", after)
	}
	if strings.Contains(g.stderr.String(), "stopped at once") {
		t.Errorf("start-api ended only by its last resort:\n%s", tail(g.stderr.String()))
	}
	var left []string
	filepath.WalkDir(g.tmp, func(path string, _ os.DirEntry, err error) error {
		if path != g.tmp {
			left = append(left, strings.TrimPrefix(path, g.tmp))
		}
		return nil
	})
	if len(left) != 0 {
		t.Errorf("left in TMPDIR after %s: %v", after, left)
	}
}

// tail is the last lines of s, enough to say why.
func tail(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 15 {
		lines = append([]string{fmt.Sprintf("[%d lines before]", len(lines)-15)}, lines[len(lines)-15:]...)
	}
	return strings.Join(lines, "\n")
}
