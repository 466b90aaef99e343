package main

import (
	"os"
	"os/exec"
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

// After strictSince, a subject names paths of the repository and starts its
// phrase with a verb in its plain form; each kind of subject that does not
// is named once.
func TestStrictProblem(t *testing.T) {
	t.Parallel()
	paths := []string{"internal/glyph", "internal/auth", "internal/httpapi", "tools/cmd/repocheck", "functions/pretraffic", "Makefile", "docs", ".ci/run", "go.mod"}
	exists := func(p string) bool { return slices.Contains(paths, p) }
	good := []string{
		"internal/glyph: add LoneSurrogate",
		"internal/glyph, internal/auth: decide lone surrogates once",
		"all: use errors.AsType",
		"go.mod: raise golang.org/x/oauth2 to v0.38.0",
		".ci/run: install nothing outside CI",
		"Makefile: pass GOFLAGS to the builds",               // -ss
		"docs: focus the design on the request",              // -us
		"internal/auth: alias the claims type",               // -as
		"internal/httpapi: proceed after a replay",           // -eed
		"functions/pretraffic: embed the fixtures",           // a verb in -ed
		"tools/cmd/repocheck: bring the rule up to Go's own", // a verb in -ing
	}
	for _, s := range good {
		if p := strictProblem(s, exists); p != "" {
			t.Errorf("strictProblem(%q) = %q, want none", s, p)
		}
	}
	bad := []struct {
		kind, subject, want string // want: in the problem
	}{
		{"a package name, not a path", "glyph: add LoneSurrogate", `"glyph" names no file or folder`},
		{"one of several names missing", "internal/glyph, nowhere: add LoneSurrogate", `"nowhere" names no file or folder`},
		{"a trailing slash", "internal/glyph/: add LoneSurrogate", `"internal/glyph/" names no file or folder`},
		{"a path from the working directory", "./internal/glyph: add LoneSurrogate", `"./internal/glyph" names no file or folder`},
		{"a capital", "internal/glyph: Add LoneSurrogate", "not a lowercase verb"},
		{"an identifier", "internal/glyph: LoneSurrogate decides once", "not a lowercase verb"},
		{"an article", "internal/glyph: the rule lives here", `"the", which is no verb`},
		{"a determiner", "internal/glyph: its tests name glyphtest", `"its", which is no verb`},
		{"a preposition", "internal/glyph: for lone surrogates", `"for", which is no verb`},
		{"a third person", "internal/glyph: adds LoneSurrogate", "a third person or a plural"},
		{"a plural", "internal/glyph: tests of LoneSurrogate", "a third person or a plural"},
		{"a past tense", "internal/glyph: added LoneSurrogate", "a past tense"},
		{"a gerund", "internal/glyph: adding LoneSurrogate", "a gerund"},
		{"a semicolon", "internal/glyph: add LoneSurrogate; drop hex4", "semicolon"},
		{"a period at the end", "internal/glyph: add LoneSurrogate.", "a period ends it"},
	}
	for _, tt := range bad {
		if p := strictProblem(tt.subject, exists); !strings.Contains(p, tt.want) {
			t.Errorf("%s: strictProblem(%q) = %q, want %q in it", tt.kind, tt.subject, p, tt.want)
		}
	}
}

// strictSubjects asks about each commit's own paths, and names the commit.
func TestStrictSubjects(t *testing.T) {
	t.Parallel()
	trees := map[string][]string{"aaaaaaaaaa": {"internal/glyph"}, "bbbbbbbbbb": {"internal/auth"}}
	exists := func(commit, p string) bool { return slices.Contains(trees[commit], p) }
	got := strictSubjects([]string{
		"aaaaaaaaaa internal/glyph: add LoneSurrogate",
		"bbbbbbbbbb internal/glyph: use LoneSurrogate",
		"",
	}, exists)
	if len(got) != 1 || !strings.HasPrefix(got[0], "commit bbbbbbb: ") {
		t.Errorf("strictSubjects: %q, want commit bbbbbbb alone", got)
	}
}

// pathsExist reads the commit's tree and its parent's from git: this
// repository's HEAD holds this folder, and no commit holds no/such/folder.
func TestPathsExist(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("no git history here: %v", err)
	}
	head := strings.TrimSpace(string(out))
	exists, err := pathsExist([]string{head + " tools/cmd/repocheck, no/such/folder: x", ""})
	if err != nil {
		t.Fatal(err)
	}
	if !exists(head, "tools/cmd/repocheck") {
		t.Errorf("tools/cmd/repocheck is not in HEAD (%s)", head)
	}
	if exists(head, "no/such/folder") {
		t.Error("no/such/folder is in HEAD")
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
