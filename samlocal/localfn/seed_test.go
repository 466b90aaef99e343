package localfn

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// A reload builds into a new folder seeded with the last build's
// executables: the go command keeps a seeded executable whose code did not
// change (no link), and links again the one whose code did, by either
// build method.
func TestASeededBuildLinksOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.CopyFS(root, fstest.MapFS{
		"go.mod":    {Data: []byte("module example.test/m\n\ngo 1.26\n")},
		"a/main.go": {Data: []byte("package main\n\nfunc main() { println(\"a\") }\n")},
		"b/main.go": {Data: []byte("package main\n\nfunc main() { println(\"b\") }\n")},
		"Makefile":  {Data: []byte("build-B:\n\t@GOWORK=off go build -o $(ARTIFACTS_DIR)/bootstrap ./b\n")},
	}); err != nil {
		t.Fatal(err)
	}
	a := samtemplate.Function{ID: "A", BuildMethod: "go1.x", CodeDir: filepath.Join(root, "a"), Executable: "bootstrap"}
	b := samtemplate.Function{ID: "B", BuildMethod: "makefile", CodeDir: root, MakefileDir: root, Executable: "bootstrap"}
	fns := []samtemplate.Function{a, b}
	// build builds into a new folder, seeded from the one before when
	// there is one, and answers which executables the build left as
	// seeded (the same file: not linked again).
	last := ""
	build := func() map[string]bool {
		t.Helper()
		dir := filepath.Join(t.TempDir(), "build")
		if last != "" {
			if err := Seed(dir, fns, func(f samtemplate.Function) string { return Executable(last, f) }); err != nil {
				t.Fatal(err)
			}
		}
		seeded := map[string]os.FileInfo{}
		for _, f := range fns {
			if fi, err := os.Stat(Executable(dir, f)); err == nil {
				seeded[f.ID] = fi
			}
		}
		if out, err := Build(context.Background(), dir, fns, ""); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		kept := map[string]bool{}
		for _, f := range fns {
			fi, err := os.Stat(Executable(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			kept[f.ID] = seeded[f.ID] != nil && os.SameFile(seeded[f.ID], fi)
		}
		last = dir
		return kept
	}

	build()
	first := last
	if kept := build(); !kept["A"] || !kept["B"] {
		t.Errorf("kept %v with no change; want both, not linked again", kept)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "main.go"), []byte("package main\n\nfunc main() { println(\"a2\") }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if kept := build(); kept["A"] || !kept["B"] {
		t.Errorf("kept %v after A's code changed; want A linked again, B kept", kept)
	}
	if fi, err := os.Stat(Executable(first, a)); err != nil || fi.Mode().Perm()&0o100 == 0 {
		t.Errorf("the first build's executable: %v %v", fi, err)
	}
}
