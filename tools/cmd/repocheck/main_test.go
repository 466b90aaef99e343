package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	big := make([]byte, maxSize+1)
	files := map[string][]byte{
		"main.go":                  []byte("package main\n"),
		"run.sh":                   []byte("#!/bin/sh\necho hi\n"),
		"invoke":                   []byte("\x7fELF\x02\x01\x01"),
		"tool-darwin":              {0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1},
		"tool.exe":                 []byte("MZ\x90\x00"),
		"data.bin":                 big,
		"pkg/testdata/corpus.bin":  big,
		"empty":                    {},
		"exactly-one-mebibyte.txt": make([]byte, maxSize),
	}
	var paths []string
	for name, b := range files {
		paths = append(paths, write(name, b))
	}
	paths = append(paths, filepath.Join(dir, "deleted-in-work-tree"))
	problems, err := check(paths)
	if err != nil {
		t.Fatal(err)
	}
	var refused []string
	for _, p := range problems {
		refused = append(refused, strings.Fields(strings.TrimPrefix(p, dir+"/"))[0])
	}
	slices.Sort(refused)
	want := []string{"data.bin", "invoke", "tool-darwin", "tool.exe"}
	if !slices.Equal(refused, want) {
		t.Errorf("refused %v, want %v\n%s", refused, want, strings.Join(problems, "\n"))
	}
}

// Subjects in Go's style pass; a long one, or one without `pkg: `, is named.
func TestBadSubjects(t *testing.T) {
	t.Parallel()
	bad := badSubjects([]string{
		"a1 preflight: trust admits only each role's own principal, asked of all",
		"a2 tests: one hostile path and one obeyed-control check (blackbox)",
		"a3 README: make test uses Delve, and Chromium where one is found",
		"a4 trace, startapi: one key",
		"b1 " + strings.Repeat("x", 60) + ": " + strings.Repeat("y", 20),
		"b2 fix the thing",
		"b3 preflight:no space",
	})
	if len(bad) != 3 || !strings.Contains(bad[0], "b1") || !strings.Contains(bad[1], "b2") || !strings.Contains(bad[2], "b3") {
		t.Errorf("bad subjects: %q", bad)
	}
}

func TestDrift(t *testing.T) {
	alone := map[string]string{"github.com/plantstore/plantstore": "", "golang.org/x/time": "v0.15.0", "go.etcd.io/bbolt": "v1.5.0"}
	if got := drift(alone, map[string]string{"github.com/plantstore/plantstore": "", "golang.org/x/time": "v0.15.0", "go.etcd.io/bbolt": "v1.5.0", "github.com/chromedp/chromedp": "v0.14.2"}); len(got) != 0 {
		t.Errorf("the same versions (and a module only the tools use): %q", got)
	}
	got := drift(alone, map[string]string{"github.com/plantstore/plantstore": "", "golang.org/x/time": "v0.16.0"})
	want := []string{
		`the product uses go.etcd.io/bbolt v1.5.0, and the workspace selects ""`,
		`the product uses golang.org/x/time v0.15.0, and the workspace selects "v0.16.0"`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("drift: %q, want %q", got, want)
	}
}
