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

// The documents name packages and files by their paths: in code spans
// (`internal/lambdaemu`, `tools/preflight/allowlist.yaml`, the module's
// import paths) and in README's layout block, whose internal/ entry names
// its packages by their paths below internal/. A package renamed or moved
// leaves such a name pointing nowhere, so each one must be a file of the
// tree or, below the folders of Go code, a folder that holds Go files
// (itself or below it). Fenced code
// blocks are not read, but for the layout; a span right after "Go's" names
// Go's own source (Go's `cmd/dist`).
func TestDocumentsNamePathsThatExist(t *testing.T) {
	t.Parallel()
	root := repoRoot(t)
	goDirs := map[string]bool{} // folders with Go files in or below them
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			for dir := filepath.Dir(path); dir != root && !goDirs[dir]; dir = filepath.Dir(dir) {
				goDirs[dir] = true
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// A folder below those of Go code must hold Go code; any other name,
	// such as docs/ or events/, must exist.
	exists := func(rel string) bool {
		rel = strings.TrimSuffix(rel, "/")
		full := filepath.Join(root, filepath.FromSlash(rel))
		info, err := os.Stat(full)
		top, _, _ := strings.Cut(rel, "/")
		return err == nil && (!info.IsDir() || goDirs[full] || !slices.Contains(goFolders, top))
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	fence := regexp.MustCompile("(?ms)^\\s*```.*?^\\s*```[ \t]*$")
	span := regexp.MustCompile("`([^`]+)`")
	// A path from the root: the module's import path and what follows it,
	// or one of the folders of Go code and what follows it, after a start,
	// a space, ./ or a parenthesis.
	pathIn := regexp.MustCompile(`(?:^|[\s(])(?:\./)?((?:github\.com/plantstore/plantstore(?:/[\w.-]+)*)|(?:(?:` + strings.Join(goFolders, "|") + `)/[\w./-]*))`)
	count := 0
	check := func(doc, where, rel string) {
		count++
		if !exists(rel) {
			t.Errorf("%s names %s (%s), which is no file of the tree nor a folder of Go code: rename the reference", doc, rel, where)
		}
	}
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, doc)
		text := string(b)
		prose := fence.ReplaceAllString(text, "")
		for _, m := range span.FindAllStringSubmatchIndex(prose, -1) {
			if strings.HasSuffix(prose[:m[0]], "Go's ") {
				continue
			}
			for _, p := range pathIn.FindAllStringSubmatch(prose[m[2]:m[3]], -1) {
				name := strings.TrimRight(p[1], ".")
				if after, ok := strings.CutPrefix(name, "github.com/plantstore/plantstore"); ok {
					if name = strings.TrimPrefix(after, "/"); name == "" {
						continue // the module itself: the root
					}
				}
				check(rel, "`"+prose[m[2]:m[3]]+"`", name)
			}
		}
		if rel == "README.md" {
			for _, n := range layoutNames(t, text) {
				check(rel, "the layout", n)
			}
		}
	}
	if count < 60 {
		t.Fatalf("%d paths found in the documents; the patterns no longer read them", count)
	}
}

// goFolders are the folders of the root that hold Go code.
var goFolders = []string{"cmd", "functions", "internal", "tools"}

// layoutNames are the paths of README's layout block (the fenced block
// under "## Layout"): each entry's own (the first column, or the names of
// the last line), and the packages its internal/ entry lists, by their
// paths below internal/ (or from the root when they start elsewhere), with
// labels ("for tests:") and notes in parentheses left out.
func layoutNames(t *testing.T, readme string) []string {
	t.Helper()
	_, block, ok := strings.Cut(readme, "\n## Layout\n")
	if !ok {
		t.Fatal(`README.md has no "## Layout" section`)
	}
	_, block, _ = strings.Cut(block, "```\n")
	block, _, _ = strings.Cut(block, "```")
	notes := regexp.MustCompile(`\s*\([^)]*\)`)
	column := regexp.MustCompile(`\s{2,}`)
	var names []string
	entry, internal := "", ""
	for _, line := range strings.Split(strings.TrimSpace(block), "\n") {
		desc := line
		if !strings.HasPrefix(line, " ") {
			var first string
			first, desc, _ = strings.Cut(line, "  ")
			entry = first
			for _, n := range strings.Split(notes.ReplaceAllString(first, ""), ",") {
				names = append(names, strings.TrimSpace(n))
			}
		}
		if entry == "internal/" {
			internal += " " + column.ReplaceAllString(desc, " ")
		}
	}
	if internal == "" {
		t.Fatal("README's layout has no internal/ entry")
	}
	token := regexp.MustCompile(`^[a-z][a-z0-9]*(/[a-z][a-z0-9]*)*$`)
	for _, item := range regexp.MustCompile(`[,;]`).Split(notes.ReplaceAllString(internal, ""), -1) {
		if i := strings.LastIndex(item, ":"); i >= 0 {
			item = item[i+1:] // "for tests: lambdatest"
		}
		item = strings.TrimSpace(item)
		if !token.MatchString(item) {
			t.Errorf("README's layout lists %q under internal/, which is no package path: list packages by their paths, separated by commas", item)
			continue
		}
		if top, _, _ := strings.Cut(item, "/"); slices.Contains(goFolders, top) {
			names = append(names, item)
		} else {
			names = append(names, "internal/"+item)
		}
	}
	return names
}
