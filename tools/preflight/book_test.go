package preflight

import (
	"context"
	"testing"

	"github.com/open-policy-agent/opa/v1/tester"
)

// Every rule of the book passes its fixtures (rules/**/*_test.rego), run by
// OPA's test runner as `opa test` would, and has at least one input it
// refuses and one it passes.
func TestRuleFixtures(t *testing.T) {
	t.Parallel()
	b, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	ch, err := tester.NewRunner().SetModules(b.TestModules()).RunTests(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	refuses, passes := map[string]bool{}, map[string]bool{}
	n := 0
	for r := range ch {
		n++
		if !r.Pass() {
			t.Errorf("%s.%s: %s", r.Package, r.Name, r)
		}
		pkg := r.Package[len("data."):]
		pkg = pkg[:len(pkg)-len("_test")]
		switch {
		case containsWord(r.Name, "refuses"):
			refuses[pkg] = true
		case containsWord(r.Name, "passes"):
			passes[pkg] = true
		}
	}
	for _, r := range b.Rules {
		if !refuses[r.Package] || !passes[r.Package] {
			t.Errorf("%s (%s): want a fixture it refuses (test_refuses_...) and one it passes (test_passes_...)", r.ID, r.File)
		}
	}
	t.Logf("%d rules, %d fixtures", len(b.Rules), n)
}

func containsWord(name, w string) bool {
	return len(name) > len("test_"+w) && name[:len("test_"+w)] == "test_"+w
}
