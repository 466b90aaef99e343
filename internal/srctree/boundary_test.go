package srctree

import (
	"os/exec"
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
				t.Errorf("%s imports %s: what a product test needs belongs in a *test package beside what it tests (internal/lambdatest, internal/dynamotest, ...)", pkg, imp)
			}
		}
	}
	if lines < 20 {
		t.Fatalf("go list listed %d packages; it did not read the product:\n%s", lines, out)
	}
}
