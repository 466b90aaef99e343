//go:build unix

package proc_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/childproc"

	"github.com/plantstore/plantstore/tools/proc"
)

// The helper process of the Main tests: Main running a function whose
// invocation is held (it waits for a child, as a function under a debugger
// waits for Delve) or that never returns at all.
func TestHelperMain(t *testing.T) {
	mode := os.Getenv("PROC_HELPER_MAIN")
	if mode == "" {
		t.Skip("run by TestOneSignalEndsAHeldTool and TestASecondSignalEndsAToolAtOnce")
	}
	proc.Main("helper", func(ctx context.Context) error {
		child := exec.Command("sleep", "600")
		if err := childproc.Start(child); err != nil {
			return err
		}
		os.Stdout.WriteString(strconv.Itoa(child.Process.Pid) + "\n")
		if mode == "held" {
			_ = child.Wait() // ends only when the child is stopped
			return nil
		}
		select {} // never returns
	})
}

// startTool starts TestHelperMain in the mode and returns it with its
// child's pid.
func startTool(t *testing.T, mode string) (*exec.Cmd, int, *strings.Builder) {
	t.Helper()
	cmd, line, stderr := startHelper(t, "TestHelperMain", "PROC_HELPER_MAIN="+mode)
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	return cmd, pid, stderr
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
	cmd, child, stderr := startTool(t, "held")
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
	cmd, child, stderr := startTool(t, "stuck")
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
