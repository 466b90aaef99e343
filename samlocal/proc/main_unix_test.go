//go:build unix

package proc_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/plantstore/plantstore/samlocal/proc"
)

// The helper process of the Main tests: Main running a function whose
// invocation is held (it waits for a child, as a function under a debugger
// waits for Delve), that never returns at all, or that prints a line once
// it is stopped. It prints its child's pid and its temporary folder.
func TestHelperMain(t *testing.T) {
	mode := os.Getenv("PROC_HELPER_MAIN")
	if mode == "" {
		t.Skip("run by the tests of Main")
	}
	// With shorter steps than a tool's, as a test can wait for them.
	steps := [3]time.Duration{100 * time.Millisecond, time.Second, 300 * time.Millisecond}
	proc.MainWithin("helper", steps, func(ctx context.Context) error {
		child := exec.Command("sleep", "600")
		if mode == "trap" { // ends its own work on SIGINT, as Delve ends its debuggee
			child = exec.Command("sh", "-c", `trap 'touch "$0"; exit 0' INT; while :; do sleep 0.05; done`, os.Getenv("PROC_HELPER_MARK"))
		}
		if err := childproc.Start(child); err != nil {
			return err
		}
		dir, err := childproc.TempDir("proc-helper-")
		if err != nil {
			return err
		}
		os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + " " + dir + "\n")
		switch mode {
		case "held", "trap":
			_ = child.Wait() // ends only when the child is stopped
			return nil
		case "printing":
			<-ctx.Done()
			fmt.Println("helper stopped") // as a server's last line
			return nil
		}
		select {} // never returns
	})
}

// startTool starts TestHelperMain in the mode, with env, and returns it
// with its child's pid and its temporary folder.
func startTool(t *testing.T, mode string, env ...string) (*exec.Cmd, int, string, *strings.Builder) {
	t.Helper()
	cmd, line, stderr := startHelper(t, "TestHelperMain", append(env, "PROC_HELPER_MAIN="+mode)...)
	pid, dir, _ := strings.Cut(line, " ")
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatal(err)
	}
	return cmd, n, dir, stderr
}

// exited waits for the tool to end (a minute only catches a hang) and
// gives its exit code.
func exited(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		return 0
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("the tool still runs a minute after it was stopped")
		return -1
	}
}

// gone says whether the process of pid has ended: none has the pid, or it
// is a zombie that its new parent has not reaped yet (Linux's /proc says
// so). A kill takes effect soon, not at once: it waits (a minute only
// catches a hang).
func gone(pid int) bool {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		if stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 0 && f[0] == "Z" {
				return true
			}
		}
	}
	return false
}

// One Ctrl-C ends a tool whose invocation is held: its children are
// stopped after stopGrace, which ends the invocation, and it exits cleanly.
func TestOneSignalEndsAHeldTool(t *testing.T) {
	t.Parallel()
	cmd, child, _, stderr := startTool(t, "held")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exited(t, cmd); code != 0 {
		t.Errorf("exit %d, want 0: %s", code, stderr)
	}
	if !gone(child) {
		t.Errorf("its child %d outlived it", child)
	}
}

// A second Ctrl-C ends a tool that does not stop at once, with status 130,
// and leaves no child behind.
func TestASecondSignalEndsAToolAtOnce(t *testing.T) {
	t.Parallel()
	cmd, child, _, stderr := startTool(t, "stuck")
	// Ctrl-C pressed again and again, as a person does: two signals sent
	// back to back can arrive as one.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			_ = cmd.Process.Signal(os.Interrupt)
			time.Sleep(100 * time.Millisecond)
		}
	}()
	code := exited(t, cmd)
	cancel()
	if code != 130 || !strings.Contains(stderr.String(), "stopped at once by a second signal") {
		t.Errorf("exit %d, want 130: %s", code, stderr)
	}
	if !gone(child) {
		t.Errorf("its child %d outlived it", child)
	}
}

// A closed terminal (SIGHUP) stops a tool as Ctrl-C does: its child is
// stopped, its temporary folder removed, and it exits cleanly, even when
// what read its output is gone too (make start-api | tee, in a terminal
// that closed), where its last line fails to print.
func TestAHangupCleansUp(t *testing.T) {
	t.Parallel()
	cmd, child, dir, stderr := startTool(t, "printing") // its output's reader is gone
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	if code := exited(t, cmd); code != 0 {
		t.Errorf("exit %d (%v), want 0: %s", code, cmd.ProcessState, stderr)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary folder %s is still there (%v)", dir, err)
	}
	if !gone(child) {
		t.Errorf("its child %d outlived it", child)
	}
}

// A child is interrupted (SIGINT to its group, as the terminal's Ctrl-C
// would reach it) before it is killed, so that it can end what it started
// in groups of its own: Delve ends its debuggee on SIGINT, and dies with
// it running on SIGKILL.
func TestAChildIsInterruptedBeforeItIsKilled(t *testing.T) {
	t.Parallel()
	mark := filepath.Join(t.TempDir(), "interrupted")
	cmd, child, _, stderr := startTool(t, "trap", "PROC_HELPER_MARK="+mark)
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exited(t, cmd); code != 0 {
		t.Errorf("exit %d, want 0: %s", code, stderr)
	}
	if _, err := os.Stat(mark); err != nil {
		t.Errorf("the child was not interrupted: %v", err)
	}
	if !gone(child) {
		t.Errorf("its child %d outlived it", child)
	}
}

// One Ctrl-C ends a tool whose run never returns: its last resort, a bound
// after its children were killed, exits 130 and leaves neither child nor
// folder.
func TestOneSignalEndsAStuckTool(t *testing.T) {
	t.Parallel()
	cmd, child, dir, stderr := startTool(t, "stuck")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := exited(t, cmd); code != 130 || !strings.Contains(stderr.String(), "stopped at once") {
		t.Errorf("exit %d, want 130: %s", code, stderr)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the temporary folder %s is still there (%v)", dir, err)
	}
	if !gone(child) {
		t.Errorf("its child %d outlived it", child)
	}
}
