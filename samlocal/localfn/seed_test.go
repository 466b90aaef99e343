package localfn

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// A reload builds into a new folder seeded with the last build's
// executables: the go command keeps a seeded executable whose code did not
// change (no link), and links again the one whose code did, by either
// build method.
func TestASeededBuildLinksOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	for name, text := range map[string]string{
		"go.mod":    "module example.test/m\n\ngo 1.26\n",
		"a/main.go": "package main\n\nfunc main() { println(\"a\") }\n",
		"b/main.go": "package main\n\nfunc main() { println(\"b\") }\n",
		"Makefile":  "build-B:\n\t@GOWORK=off go build -o $(ARTIFACTS_DIR)/bootstrap ./b\n",
	} {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fns := []samtemplate.Function{
		{ID: "A", BuildMethod: "go1.x", CodeDir: filepath.Join(root, "a"), Executable: "bootstrap"},
		{ID: "B", BuildMethod: "makefile", CodeDir: root, MakefileDir: root, Executable: "bootstrap"},
	}
	ctx := context.Background()
	build := func(dir, from string) map[string]os.FileInfo {
		t.Helper()
		if from != "" {
			if err := Seed(dir, fns, func(f samtemplate.Function) string { return Executable(from, f) }); err != nil {
				t.Fatal(err)
			}
		}
		seeded := map[string]os.FileInfo{}
		for _, f := range fns {
			if fi, err := os.Stat(Executable(dir, f)); err == nil {
				seeded[f.ID] = fi
			}
		}
		if out, err := Build(ctx, dir, fns, ""); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return seeded
	}
	kept := func(dir string, seeded map[string]os.FileInfo, id string) bool {
		t.Helper()
		fi, err := os.Stat(Executable(dir, fns[map[string]int{"A": 0, "B": 1}[id]]))
		if err != nil {
			t.Fatal(err)
		}
		return seeded[id] != nil && os.SameFile(seeded[id], fi)
	}

	first := filepath.Join(t.TempDir(), "build-0")
	build(first, "")
	second := filepath.Join(t.TempDir(), "build-1")
	seeded := build(second, first)
	for _, id := range []string{"A", "B"} {
		if !kept(second, seeded, id) {
			t.Errorf("%s: linked again with no change", id)
		}
	}

	if err := os.WriteFile(filepath.Join(root, "a", "main.go"), []byte("package main\n\nfunc main() { println(\"a2\") }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	third := filepath.Join(t.TempDir(), "build-2")
	seeded = build(third, second)
	if kept(third, seeded, "A") {
		t.Error("A: the seeded executable was kept after its code changed")
	}
	if !kept(third, seeded, "B") {
		t.Error("B: linked again though only A changed")
	}
	if fi, err := os.Stat(Executable(first, fns[0])); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("the first build's executable: %v %v", fi, err)
	}
}
