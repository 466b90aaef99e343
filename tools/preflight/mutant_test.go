package preflight

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/tools/watchtest"
)

// edit is one dangerous change to one file of the repository: Old becomes
// New (the first occurrence after After, when After is set).
type edit struct {
	File, After, Old, New string
}

// mutantFiles are the files the guards read.
var mutantFiles = []string{"template.yaml", "samconfig.toml", "pipeline/roles.yaml", "Makefile"}

// mutant is a copy of the files the guards read, in a directory of its own,
// with the edits made. An edit that changes nothing fails the test: the
// danger it stands for would go unasked.
func mutant(t *testing.T, edits ...edit) string {
	t.Helper()
	files := slices.Clone(mutantFiles)
	managed, _ := filepath.Glob(filepath.Join(repoRoot, "tools/preflight/testdata/managed/*.json"))
	for _, m := range managed {
		rel, _ := filepath.Rel(repoRoot, m)
		files = append(files, filepath.ToSlash(rel))
	}
	dir := watchtest.CopyFiles(t, files...)
	applyEdits(t, dir, edits...)
	return dir
}

// applyEdits makes the edits in the copy at dir.
func applyEdits(t *testing.T, dir string, edits ...edit) {
	t.Helper()
	for _, e := range edits {
		path := filepath.Join(dir, e.File)
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(raw)
		at := 0
		if e.After != "" {
			at = strings.Index(text, e.After)
			if at < 0 {
				t.Fatalf("%s has no %q: the edit is stale", e.File, e.After)
			}
		}
		i := strings.Index(text[at:], e.Old)
		if i < 0 {
			t.Fatalf("%s has no %q after %q: the edit is stale", e.File, e.Old, e.After)
		}
		text = text[:at+i] + e.New + text[at+i+len(e.Old):]
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// loadMutant makes the variants of a mutant concrete.
func loadMutant(t *testing.T, root string, variants ...string) []env {
	t.Helper()
	var out []env
	for _, v := range variants {
		e, err := loadVariant(root, v)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

// wantFinding fails unless a finding names where and contains rule; where
// may start with the rule's ID ("PS-TPL-002 CreatePlantS3Permission").
func wantFinding(t *testing.T, findings []Finding, where, rule string) {
	t.Helper()
	id, rest, ok := strings.Cut(where, " ")
	if !ruleIDForm.MatchString(id) {
		id, rest, ok = "", where, true
	}
	if !ok {
		rest = ""
	}
	for _, f := range findings {
		if (id == "" || f.ID == id) && strings.Contains(f.File+" "+f.Rule, rest) && strings.Contains(f.String(), rule) {
			t.Logf("caught: %s", f)
			return
		}
	}
	t.Errorf("no finding on %s saying %q; findings: %v", where, rule, findings)
}

// skipMutantsInShort leaves the dangerous edits to make test: make lint runs
// the guards on the repository alone (go test -short), to stay quick.
func skipMutantsInShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the guards' dangerous edits run in make test")
	}
}
