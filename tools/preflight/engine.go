package preflight

// The rule book: the rules are Rego, one rule a file under rules/, each
// with its METADATA (id, title, danger, fix, source) and its fixtures
// (<rule>_test.rego beside it), embedded in the binary and evaluated in
// process by OPA's Go package over the facts that facts.go reads once.
// A rule is a package preflight.rules.<name> whose set `deny` holds its
// findings: {"file", "line", "msg"} and, where it says more than the
// METADATA, "fix".

import (
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

//go:embed rules
var rulesFS embed.FS

// Rule is one rule of the book, as its METADATA states it.
type Rule struct {
	ID      string // stable, never reused: PS-WF-001
	Title   string
	Danger  string // what goes wrong, in one sentence
	Fix     string
	Source  string // the page the rule follows
	Package string // preflight.rules.<name>
	File    string // rules/<family>/<name>.rego
}

// ruleIDForm is the form of an ID: PS-<family>-<three digits>.
var ruleIDForm = regexp.MustCompile(`^PS-[A-Z]+-\d{3}$`)

// Book is the compiled rules.
type Book struct {
	Rules   []Rule // by ID
	byPkg   map[string]Rule
	modules map[string]*ast.Module // every file, tests too, by path
	query   rego.PreparedEvalQuery
}

// theBook is the embedded rule book, compiled once.
var theBook = sync.OnceValues(func() (*Book, error) { return loadBook(rulesFS) })

// LoadBook is the embedded rule book.
func LoadBook() (*Book, error) { return theBook() }

func loadBook(fsys fs.FS) (*Book, error) {
	b := &Book{byPkg: map[string]Rule{}, modules: map[string]*ast.Module{}}
	err := fs.WalkDir(fsys, "rules", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".rego") {
			return err
		}
		raw, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		m, err := ast.ParseModuleWithOpts(p, string(raw), ast.ParserOptions{ProcessAnnotation: true, RegoVersion: ast.RegoV1})
		if err != nil {
			return err
		}
		b.modules[p] = m
		pkg := strings.TrimPrefix(m.Package.Path.String(), "data.")
		if strings.HasSuffix(p, "_test.rego") || !strings.HasPrefix(pkg, "preflight.rules.") {
			return nil
		}
		r, err := ruleOf(m, p, pkg)
		if err != nil {
			return err
		}
		if _, dup := b.byPkg[pkg]; dup {
			return fmt.Errorf("%s: package %s is another file's: one rule, one file", p, pkg)
		}
		b.byPkg[pkg] = r
		b.Rules = append(b.Rules, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortRules(b.Rules)
	for i := 1; i < len(b.Rules); i++ {
		if b.Rules[i].ID == b.Rules[i-1].ID {
			return nil, fmt.Errorf("%s and %s share the ID %s", b.Rules[i-1].File, b.Rules[i].File, b.Rules[i].ID)
		}
	}
	// The query asks each rule's deny alone: asking data.preflight.rules
	// evaluated every helper rule of every file and made JSON of it all.
	var denies []string
	for _, r := range b.Rules {
		denies = append(denies, fmt.Sprintf("%q: [d | some d in data.%s.deny]", r.Package, r.Package))
	}
	opts := []func(*rego.Rego){rego.Query("{" + strings.Join(denies, ", ") + "}"), rego.SetRegoVersion(ast.RegoV1)}
	for p, m := range b.modules {
		if !strings.HasSuffix(p, "_test.rego") {
			opts = append(opts, rego.ParsedModule(m))
		}
	}
	b.query, err = rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return nil, fmt.Errorf("the rule book: %w", err)
	}
	return b, nil
}

// ruleOf reads a rule's package METADATA.
func ruleOf(m *ast.Module, file, pkg string) (Rule, error) {
	for _, a := range m.Annotations {
		if a.Scope != "package" {
			continue
		}
		s := func(k string) string { v, _ := a.Custom[k].(string); return strings.TrimSpace(v) }
		r := Rule{ID: s("id"), Title: a.Title, Danger: s("danger"), Fix: s("fix"), Package: pkg, File: file}
		for _, rr := range a.RelatedResources {
			r.Source = rr.Ref.String()
			break
		}
		switch {
		case !ruleIDForm.MatchString(r.ID):
			return r, fmt.Errorf("%s: METADATA custom.id %q is not PS-<FAMILY>-<nnn>", file, r.ID)
		case r.Title == "" || r.Danger == "" || r.Fix == "" || r.Source == "":
			return r, fmt.Errorf("%s: METADATA needs a title, custom.danger, custom.fix and a related_resources ref (the source)", file)
		}
		return r, nil
	}
	return Rule{}, fmt.Errorf("%s: no package METADATA (id, title, danger, fix, source)", file)
}

// evalValue is Eval of an input already in OPA's form.
func (b *Book) evalValue(ctx context.Context, in ast.Value) ([]Finding, error) {
	rs, err := b.query.Eval(ctx, rego.EvalParsedInput(in))
	if err != nil {
		return nil, fmt.Errorf("the rule book: %w", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("the rule book gave %d results", len(rs))
	}
	var out []Finding
	by, _ := rs[0].Expressions[0].Value.(map[string]any)
	for pkg, deny := range by {
		r := b.byPkg[pkg]
		for _, d := range deny.([]any) {
			f, _ := d.(map[string]any)
			out = append(out, Finding{ID: r.ID, File: str(f["file"]), Line: num(f["line"]), Rule: cmp.Or(str(f["msg"]), r.Danger), Fix: cmp.Or(str(f["fix"]), r.Fix)})
		}
	}
	sortFindings(out)
	return out, nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func num(v any) int {
	switch n := v.(type) {
	case json.Number:
		i, _ := n.Int64()
		return int(i)
	case int:
		return n
	case float64:
		return int(n)
	}
	return 0
}

func sortRules(rs []Rule) {
	slices.SortFunc(rs, func(x, y Rule) int { return strings.Compare(x.ID, y.ID) })
}
