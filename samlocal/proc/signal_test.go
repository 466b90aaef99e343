package proc_test

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/plantstore/plantstore/samlocal/proc"
)

// The helper process of TestExitOnSignalCleansUp: a batch tool that made a
// temporary folder and started a child, then waits to be interrupted.
func TestHelperBatchTool(t *testing.T) {
	if os.Getenv("PROC_HELPER") != "1" {
		t.Skip("run by TestExitOnSignalCleansUp")
	}
	proc.ExitOnSignal("helper")
	dir, err := childproc.TempDir("proc-helper-")
	if err != nil {
		t.Fatal(err)
	}
	child := exec.Command("sleep", "60")
	if err := childproc.Start(child); err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(dir + "\n")
	select {} // until the signal
}

// Ctrl-C during make bench or make load, a closed terminal (SIGHUP) or a
// kill: the tool exits 130, its temporary folder is gone and so is its
// child.
func TestExitOnSignalCleansUp(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no signal to send on Windows")
	}
	t.Parallel()
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			t.Parallel()
			cmd, dir, stderr := startHelper(t, "TestHelperBatchTool", "PROC_HELPER=1")
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("the helper's folder: %v", err)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 130 {
				t.Errorf("after %v: %v, want exit status 130\n%s", sig, err, stderr.String())
			}
			if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the temporary folder %s is still there (%v)", dir, err)
			}
			if !strings.Contains(stderr.String(), "helper: stopped by "+sig.String()) {
				t.Errorf("stderr %q does not say why it stopped", stderr.String())
			}
		})
	}
}

// startHelper runs this test binary's helper test as a tool, with env set,
// and returns it with the first line it printed, once it printed it. Then
// what read its output is gone: a line it prints later meets a broken
// pipe, as a tool's does under make start-api | tee in a terminal that
// closed.
func startHelper(t *testing.T, test string, env ...string) (*exec.Cmd, string, *strings.Builder) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	if !sc.Scan() {
		t.Fatalf("the helper printed nothing: %s", stderr.String())
	}
	out.Close()
	return cmd, sc.Text(), &stderr
}
