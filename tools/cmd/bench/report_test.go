package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/repotest"
)

// docs/performance.md's generated table is the rendering of docs/bench.json,
// the report of the last make bench: neither is edited apart from the other.
func TestPerformanceMdIsTheReport(t *testing.T) {
	t.Parallel()
	docs := repotest.Path("docs")
	r, err := readReport(filepath.Join(docs, "bench.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Rows) < 10 || r.Date == "" || r.Machine == "" {
		t.Fatalf("docs/bench.json holds %d rows, date %q, machine %q: not a whole make bench run", len(r.Rows), r.Date, r.Machine)
	}
	doc, err := os.ReadFile(filepath.Join(docs, "performance.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := replaceBlock(doc, r.Render())
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Errorf("docs/performance.md's make bench block differs from docs/bench.json rendered; run `go run ./tools/cmd/bench -from docs/bench.json -render docs/performance.md` or make bench")
	}
}

func TestReplaceBlock(t *testing.T) {
	t.Parallel()
	doc := "intro\n" + beginMarker + "\nold\n" + endMarker + "\nrest\n"
	got, err := replaceBlock([]byte(doc), "new\n")
	if err != nil || string(got) != "intro\n"+beginMarker+"\nnew\n"+endMarker+"\nrest\n" {
		t.Errorf("replaceBlock = %q, %v", got, err)
	}
	if _, err := replaceBlock([]byte("no markers"), "x"); err == nil || !strings.Contains(err.Error(), "marker") {
		t.Errorf("a document without markers: %v", err)
	}
}
