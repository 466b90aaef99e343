package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The bench renders through package figures, whose tests hold the
// documents to docs/bench.json; here, that -render takes a list and globs
// and writes nothing unless every document renders.
func TestRenderInto(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := Report{Date: "2026-11-25", Machine: "m", Command: "c", Rows: []Row{{Figure: "warm invocation p50, createplant (400)", Value: "2.83 ms", Floor: "raw PutItem 2.58 ms", Ratio: "1.09x", Goal: "<= 1.10x"}}}
	write := func(name, text string) string {
		t.Helper()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a := write("a.md", "p50 <!-- fig: warm invocation p50, createplant (400) .value -->4.52 ms<!-- /fig -->\n")
	b := write("b.md", "<!-- fig: table -->\n<!-- /fig -->\n")
	readme := write("README.md", "no figures\n")
	if err := renderInto(filepath.Join(dir, "README.md")+","+filepath.Join(dir, "*.md"), r); err != nil {
		t.Fatal(err)
	}
	if got := read(a); got != "p50 <!-- fig: warm invocation p50, createplant (400) .value -->2.83 ms<!-- /fig -->\n" {
		t.Errorf("a.md = %q", got)
	}
	if got := read(b); !strings.Contains(got, "warm invocation p50, createplant (400)                          2.83 ms") {
		t.Errorf("b.md = %q", got)
	}
	if got := read(readme); got != "no figures\n" {
		t.Errorf("README.md = %q", got)
	}

	write("c.md", "<!-- fig: local API p99 .value -->4.87 ms<!-- /fig -->\n")
	write("a.md", "stale <!-- fig: warm invocation p50, createplant (400) .value -->4.52 ms<!-- /fig -->\n")
	err := renderInto(filepath.Join(dir, "*.md"), r)
	if err == nil || !strings.Contains(err.Error(), "c.md:1:") || !strings.Contains(err.Error(), `no row "local API p99"`) {
		t.Errorf("a document citing a row the run lacks: %v", err)
	}
	if got := read(a); !strings.Contains(got, "4.52 ms") {
		t.Errorf("a.md was written though c.md failed: %q", got)
	}
	if err := renderInto(filepath.Join(dir, "*.txt"), r); err == nil {
		t.Error("a glob matching nothing: no error")
	}
}
