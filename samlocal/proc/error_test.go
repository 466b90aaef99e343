package proc_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/proc"
)

// The helper process of TestTheErrorIsPrintedEscaped: Main on a run that
// fails with repository data in its error, over two lines (a build's
// output).
func TestHelperError(t *testing.T) {
	if os.Getenv("PROC_HELPER_ERROR") == "" {
		t.Skip("run by TestTheErrorIsPrintedEscaped")
	}
	proc.Main("helper", func(context.Context) error {
		return errors.New("events/env.json: environment variables \x1b]52;c;ZXZpbA==\x07 in incorrect format\n\u009b31mline two")
	})
}

// A tool's error may carry what the repository holds (an env file's value,
// the compiler's output on a file's name): Main prints it escaped
// (termsafe.Escape) line by line, as git prints such a path (core.quotePath).
func TestTheErrorIsPrintedEscaped(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperError$")
	cmd.Env = append(os.Environ(), "PROC_HELPER_ERROR=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("the helper: %v, want exit status 1; stderr:\n%s", err, stderr.String())
	}
	want := "helper: events/env.json: environment variables \\x1b]52;c;ZXZpbA==\\a in incorrect format\n\\u009b31mline two\n"
	if stderr.String() != want {
		t.Errorf("stderr = %q, want %q", stderr.String(), want)
	}
	devservertest.NothingObeyed(t, map[string]string{"stderr": stderr.String()})
}
