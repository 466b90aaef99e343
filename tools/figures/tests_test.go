package figures

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The documents name the test behind a claim as "pkg: TestName" (docs/
// security.md's table, README's contributing line). A package renamed or
// a test moved leaves such a name pointing nowhere, so each one must name
// a test, fuzz target or benchmark defined in a folder named pkg (or ending
// in /pkg).
func TestDocumentsNameTestsThatExist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	defined := map[string][]string{} // test name -> folders
	funcs := regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		for _, m := range funcs.FindAllStringSubmatch(string(b), -1) {
			defined[m[1]] = append(defined[m[1]], filepath.ToSlash(dir))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	// "pkg: TestA" and "pkg: TestA, TestB", across a line break too.
	named := regexp.MustCompile(`([a-z][a-z0-9/]*):\s+((?:Test|Fuzz|Benchmark)\w+(?:,\s+(?:Test|Fuzz|Benchmark)\w+)*)`)
	names := regexp.MustCompile(`(?:Test|Fuzz|Benchmark)\w+`)
	count := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range named.FindAllStringSubmatch(string(b), -1) {
			pkg := m[1]
			for _, test := range names.FindAllString(m[2], -1) {
				count++
				if !slices.ContainsFunc(defined[test], func(dir string) bool { return dir == pkg || strings.HasSuffix(dir, "/"+pkg) }) {
					rel, _ := filepath.Rel(root, doc)
					t.Errorf("%s names %s: %s, and no folder %s defines it (defined in %v): rename the reference", rel, pkg, test, pkg, defined[test])
				}
			}
		}
	}
	if count < 50 {
		t.Fatalf("%d test names found in the documents; the pattern no longer reads them", count)
	}
}
