package localserve

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/proctest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/watch"
)

// A pull request may add a Go file whose name writes the clipboard (OSC 52)
// or reads as make syntax. With WATCH=1 its name reaches the reload line and
// the compiler's error names it again: both are printed escaped
// (termsafe.Escape), and the name reaches make and the shell only as go build's
// data, never as syntax (no file "pwned" appears).
func TestTheReloadLinePrintsFileNamesEscaped(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":              "module example.test/m\n\ngo 1.26\n",
		"functions/x/main.go": "package main\n\nfunc main() {}\n",
		"Makefile":            "build-X:\n\t@GOWORK=off go build -o $(ARTIFACTS_DIR)/bootstrap ./functions/x\n",
	} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out proctest.Output
	builds := t.TempDir()
	fn := samtemplate.Function{ID: "X", BuildMethod: "makefile", CodeDir: root, MakefileDir: root, Executable: "bootstrap"}
	_, err := Reload(ctx, root, watch.Files{Template: "template.yaml"}, &out, func(_ context.Context, c watch.Change) (string, error) {
		if text, err := localfn.Build(ctx, builds, []samtemplate.Function{fn}, ""); err != nil {
			return "", &BuildFailed{Output: text}
		}
		return "built", nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hostile := "a$(shell touch pwned)\x1b]52;c;ZXZpbA==\x07\u009b31m.go"
	if err := os.WriteFile(filepath.Join(root, "functions", "x", hostile), []byte("package main\n\nfunc (\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.WaitFor(t, "the build failed", 1)
	escaped := `a$(shell touch pwned)\x1b]52;c;ZXZpbA==\a\u009b31m.go`
	if n := strings.Count(out.String(), escaped); n < 2 {
		t.Errorf("the file's name appears escaped %d times, want in the reload line and in the compiler's error:\n%s", n, out.String())
	}
	devservertest.NothingObeyed(t, map[string]string{"the reload lines": out.String()})
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Error("the file's name ran as a command")
	}
}

// A reload that closed the last generation (Reloader.Replace, under a
// debugger) and could not start the next says that nothing serves, not that
// the last good version does.
func TestAReplaceThatFailsSaysNothingServes(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out proctest.Output
	_, err := Reload(ctx, root, watch.Files{Template: "template.yaml"}, &out, func(context.Context, watch.Change) (string, error) {
		return "", &Unserved{errors.New("CreatePlantFunction did not start")}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "template.yaml"), []byte("Resources: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out.WaitFor(t, "CreatePlantFunction did not start; nothing serves (503) until the next change", 1)
	if strings.Contains(out.String(), "keeps serving") {
		t.Errorf("the line says the last version serves:\n%s", out.String())
	}
}
