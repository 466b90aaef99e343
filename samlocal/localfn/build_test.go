package localfn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// Build hands make nothing it would read as syntax: a function named
// `Evil:=$(shell ...)` is a variable assignment on make's command line
// (make runs the shell at once), and a build folder holding `$(shell ...)`
// or a space is expanded by make and split by the shell in the recipe's
// `-o $(ARTIFACTS_DIR)/bootstrap`. Each is refused with one line naming it
// and the rule, before make runs.
func TestBuildHandsMakeOnlyPlainWords(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	// Any target make is asked for leaves a mark; the hostile arguments
	// would leave theirs.
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte("build-%:\n\t@mkdir -p $(ARTIFACTS_DIR) && touch ran-$* $(ARTIFACTS_DIR)/bootstrap\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, fn string
	}{
		{"an assignment", "out", "Evil:=$(shell touch pwned)"},
		{"a recursive assignment", "out", "Evil=$(shell touch pwned)"},
		{"a path", "out", "../../scripts/evil"},
		{"a control", "out", "Clip\x1b]52;c;aGk=\x07"},
		{"a folder that make expands", "$(shell touch pwned)", "Fn"},
		{"a folder that the shell splits", "a b;touch pwned;", "Fn"},
	} {
		out, err := Build(context.Background(), filepath.Join(t.TempDir(), tc.dir), makefileFns(root, tc.fn), "")
		if err == nil {
			t.Errorf("%s: no error (make printed %q)", tc.name, out)
		} else if msg := err.Error(); strings.ContainsAny(msg, "\x1b\x07") || !strings.Contains(msg, "^[A-Za-z0-9]+$") && !strings.Contains(msg, "ARTIFACTS_DIR") {
			t.Errorf("%s: %q; want one line naming it and the rule, escaped", tc.name, msg)
		}
		entries, _ := os.ReadDir(root)
		for _, e := range entries {
			if e.Name() != "Makefile" {
				t.Errorf("%s: make ran and left %q", tc.name, e.Name())
				os.Remove(filepath.Join(root, e.Name()))
			}
		}
		if _, err := os.Stat("pwned"); err == nil {
			t.Errorf("%s: make ran the shell in the test's folder", tc.name)
			os.Remove("pwned")
		}
	}
	if out, err := Build(context.Background(), t.TempDir(), makefileFns(root, "Fn"), ""); err != nil {
		t.Fatalf("a plain build: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(root, "ran-Fn")); err != nil {
		t.Errorf("a plain build did not run make's build-Fn: %v", err)
	}
}

// makefileFns are functions built by root's Makefile (BuildMethod makefile).
func makefileFns(root string, ids ...string) []samtemplate.Function {
	var fns []samtemplate.Function
	for _, id := range ids {
		fns = append(fns, samtemplate.Function{ID: id, BuildMethod: "makefile", CodeDir: root, MakefileDir: root, Executable: "bootstrap"})
	}
	return fns
}
