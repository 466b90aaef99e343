package preflight

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/format"
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

// Every file of the book, fixtures too, is as `opa fmt` writes it (OPA's
// format package; Regal's style rule opa-fmt), as every Go file is as gofmt
// writes it: a diff of a rule shows what changed, not how it was typed.
// UPDATE_PREFLIGHT=1 rewrites them.
func TestRulesAreInOPAFormat(t *testing.T) {
	t.Parallel()
	b, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range slices.Sorted(maps.Keys(b.TestModules())) {
		raw, err := fs.ReadFile(rulesFS, p)
		if err != nil {
			t.Fatal(err)
		}
		want, err := format.Source(p, raw)
		switch {
		case err != nil:
			t.Errorf("%s: %v", p, err)
		case string(want) == string(raw):
		case os.Getenv("UPDATE_PREFLIGHT") == "1":
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s is not as opa fmt writes it: UPDATE_PREFLIGHT=1 go test ./tools/preflight -run TestRulesAreInOPAFormat rewrites it", p)
		}
	}
}

// docs/security.md lists every rule by ID, with its danger and source, as
// the rules' METADATA says (RenderCommand writes it).
func TestSecurityDocListsEveryRule(t *testing.T) {
	t.Parallel()
	b, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := RenderRules(string(raw), b.AllRules())
	if err != nil {
		t.Fatal(err)
	}
	if want != string(raw) {
		t.Errorf("docs/security.md's rule table is stale: run %s", RenderCommand)
	}
}

// The example of docs/security.md's "Adding a rule" is a rule of the book's
// form that passes its own fixtures: one Rego file and its tests, no Go.
func TestAddingARuleExample(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "security.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(raw), "### Adding a rule")
	blocks := regexp.MustCompile("(?s)```rego\n# (tools/preflight/(rules/[^\n]+))\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 2 {
		t.Fatalf("\"Adding a rule\" has %d rego blocks, want the rule and its fixtures", len(blocks))
	}
	fsys := fstest.MapFS{}
	for _, f := range []string{"rules/lib/github.rego"} {
		src, err := rulesFS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fsys[f] = &fstest.MapFile{Data: src}
	}
	for _, b := range blocks {
		fsys[b[2]] = &fstest.MapFile{Data: []byte(b[3])}
	}
	book, err := loadBook(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(book.Rules) != 1 {
		t.Fatalf("the example makes %d rules, want one", len(book.Rules))
	}
	real, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range real.AllRules() {
		if r.ID == book.Rules[0].ID {
			t.Errorf("the example's ID %s is %s's", r.ID, r.File)
		}
	}
	ch, err := tester.NewRunner().SetModules(book.TestModules()).RunTests(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := range ch {
		n++
		if !r.Pass() {
			t.Errorf("%s.%s: %s", r.Package, r.Name, r)
		}
	}
	if n < 2 {
		t.Errorf("%d fixtures ran, want two", n)
	}
}

// Eval applies every rule to the facts.
func (b *Book) Eval(ctx context.Context, facts any) ([]Finding, error) {
	in, err := ast.InterfaceToValue(facts)
	if err != nil {
		return nil, fmt.Errorf("the rule book's input: %w", err)
	}
	return b.evalValue(ctx, in)
}

// TestModules are every module of the book, the fixtures with them, for
// OPA's test runner.
func (b *Book) TestModules() map[string]*ast.Module { return b.modules }

// A rule is asked again only when a part of the input it reads changed:
// its own input.<key>s and those of the library rules it calls; a rule
// that reads input by a variable reads all of it.
func TestRulesAreGroupedByThePartsTheyRead(t *testing.T) {
	c := ast.MustCompileModules(map[string]string{
		"lib.rego":   "package preflight.lib.x\n\nf(v) := v if input.b\n",
		"a.rego":     "package preflight.rules.a\n\nimport data.preflight.lib.x\n\ndeny contains 1 if {\n\tinput.a\n\tx.f(1)\n}\n",
		"whole.rego": "package preflight.rules.whole\n\ndeny contains k if some k, _ in input\n",
	})
	if got := inputParts(c, "preflight.rules.a", map[*ast.Module]moduleReads{}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("a reads %q, want [a b]", got)
	}
	if got := inputParts(c, "preflight.rules.whole", map[*ast.Module]moduleReads{}); got != nil {
		t.Errorf("whole reads %q, want all of input (nil)", got)
	}
	// The book's answers, kept or not, are the rules' answers: a finding
	// comes with its edit, goes without it and comes back with it.
	needEvaluator(t)
	skipMutantsInShort(t)
	unsafe := checkedMutant(t, edit{".github/workflows/deploy.yml", "", "    branches: [main]\n", "    branches: ['**']\n"})
	var got []string
	for _, root := range []string{unsafe, repoRoot, unsafe} {
		fs, err := Check(context.Background(), root)
		if err != nil {
			t.Fatal(err)
		}
		ids := ""
		for _, f := range fs {
			ids += f.ID + " "
		}
		got = append(got, ids)
	}
	if !strings.Contains(got[0], "PS-WF-002 ") || got[1] != "" || got[2] != got[0] {
		t.Errorf("the findings of an edit, the repository and the edit again: %q, want PS-WF-002 for the edit both times and none between", got)
	}
}
