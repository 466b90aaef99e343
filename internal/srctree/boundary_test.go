package srctree

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoProductPackageImportsTheTools holds the line between the modules:
// no package of the product, nor any of its tests, depends on tools/. It
// asks go list in the workspace (go.work), where such an import would
// build; GOWORK=off would merely fail to resolve it.
func TestNoProductPackageImportsTheTools(t *testing.T) {
	cmd := exec.Command("go", "list", "-deps", "-test", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "./...")
	cmd.Dir = Path()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var lines int
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		lines++
		pkg, imports, _ := strings.Cut(line, " ")
		if !strings.HasPrefix(pkg, module+"/") || strings.HasPrefix(pkg, module+"/tools/") {
			continue
		}
		for _, imp := range strings.Fields(imports) {
			if strings.HasPrefix(imp, module+"/tools/") || imp == module+"/tools" {
				t.Errorf("%s imports %s: what a product test needs belongs in the product: in a *test package beside what it tests (internal/lambdatest, internal/dynamotest, ...), or, when the tools run on it too, in a package named for what it is (internal/lambdaemu, internal/dynamoemu, ...)", pkg, imp)
			}
		}
	}
	if lines < 20 {
		t.Fatalf("go list listed %d packages; it did not read the product:\n%s", lines, out)
	}
}

// TestOnlyTestsImportTestPackages holds the naming rule of docs/design.md
// ("Two modules"): a package whose name ends in "test" is what only tests
// use, as net/http/httptest is, and what a program runs on is named for
// what it is. So no file of either module imports such a package unless it
// is a test file or a file of another *test package. It reads only the
// import clauses (go/parser, no build), every file whatever its build tags;
// an imported package's name is the one its files declare when it is in
// this tree, else the last element of its path.
func TestOnlyTestsImportTestPackages(t *testing.T) {
	t.Parallel()
	root := Path()
	type file struct {
		path, pkg string
		imports   []string
	}
	var files []file
	names := map[string]string{} // import path -> package name, for this tree's packages
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); p != root && (strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "node_modules" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(p))
		names[path.Join(module, filepath.ToSlash(rel))] = f.Name.Name
		fl := file{path: filepath.ToSlash(filepath.Join(rel, filepath.Base(p))), pkg: f.Name.Name}
		for _, imp := range f.Imports {
			ip, _ := strconv.Unquote(imp.Path.Value)
			fl.imports = append(fl.imports, ip)
		}
		files = append(files, fl)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	testPackages := 0
	for _, name := range names {
		if strings.HasSuffix(name, "test") {
			testPackages++
		}
	}
	if len(files) < 100 || testPackages < 5 {
		t.Fatalf("read %d files and %d *test packages; the walk no longer reads the modules", len(files), testPackages)
	}
	for _, f := range files {
		if strings.HasSuffix(f.pkg, "test") {
			continue
		}
		for _, ip := range f.imports {
			name, ok := names[ip]
			if !ok {
				name = path.Base(ip)
			}
			if strings.HasSuffix(name, "test") {
				t.Errorf("%s (package %s) imports %s, a package named for tests: move what it uses into a package named for what it is (internal/lambdaemu, internal/dynamoemu, internal/childproc, ...)", f.path, f.pkg, ip)
			}
		}
	}
}
