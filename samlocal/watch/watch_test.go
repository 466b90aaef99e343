package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func write(t testing.TB, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A burst of saves is one change, sorted by what it touches; docs and tests
// are no change at all. The test waits for each change, never for time.
func TestChanges(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, filepath.Join(root, "internal", "httpapi", "errors.go"), "package httpapi\n")
	write(t, filepath.Join(root, "template.yaml"), "a: 1\n")
	write(t, filepath.Join(root, "events", "env.json"), "{}\n")
	w, err := New(root, Files{Template: "template.yaml", EnvFile: "events/env.json"}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go w.Run(ctx)
	next := func() Change {
		t.Helper()
		select {
		case c := <-w.Changes():
			return c
		case <-time.After(30 * time.Second):
			t.Fatal("no change within 30s")
			return Change{}
		}
	}

	// Ignored: docs, tests, testdata. Then a Go burst of ten saves.
	write(t, filepath.Join(root, "README.md"), "x\n")
	write(t, filepath.Join(root, "internal", "httpapi", "errors_test.go"), "package httpapi\n")
	for i := range 10 {
		write(t, filepath.Join(root, "internal", "httpapi", "errors.go"), "package httpapi\n// "+string(rune('a'+i))+"\n")
	}
	if c := next(); len(c.Go) != 1 || c.Go[0] != "internal/httpapi/errors.go" || c.Template || c.EnvFile {
		t.Errorf("ten saves of one file: %+v, want one Go change", c)
	}
	// A machine under load can deliver the burst's last events after the
	// quiet period: they may join the next change, and nothing else may.
	write(t, filepath.Join(root, "template.yaml"), "a: 2\n")
	if c := next(); !c.Template || len(c.Go) > 1 || len(c.Go) == 1 && c.Go[0] != "internal/httpapi/errors.go" {
		t.Errorf("template: %+v", c)
	}
	write(t, filepath.Join(root, "events", "env.json"), `{"a":1}`)
	if c := next(); !c.EnvFile || c.Template {
		t.Errorf("env file: %+v", c)
	}
	// A new package folder is watched too.
	write(t, filepath.Join(root, "internal", "newpkg", "x.go"), "package newpkg\n")
	if c := next(); len(c.Go) == 0 {
		t.Errorf("a new package: %+v", c)
	}
	write(t, filepath.Join(root, "internal", "newpkg", "y.go"), "package newpkg\n")
	if c := next(); len(c.Go) != 1 || c.Go[0] != "internal/newpkg/y.go" {
		t.Errorf("a file in the new package: %+v", c)
	}
}
