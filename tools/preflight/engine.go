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
	"maps"
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
	groups  []*group
}

// A group is the rules that read the same parts of the input (input.<key>,
// with the library rules they call), asked in one query, and its last
// answers by the values of those parts: a rule is a function of its input,
// so an evaluation whose parts equal an earlier one's answers as it did.
// A Check of an edited copy changes a part or two; the rules that read
// none of them are not asked again.
type group struct {
	keys  []string // nil: the whole input (a rule reads input by a variable)
	query rego.PreparedEvalQuery
	mu    sync.Mutex
	seen  []answer // most recently used first
}

type answer struct {
	parts    []ast.Value
	findings []Finding
}

// keptAnswers is how many answers a group keeps.
const keptAnswers = 16

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
	rules := maps.Clone(b.modules)
	maps.DeleteFunc(rules, func(p string, _ *ast.Module) bool { return strings.HasSuffix(p, "_test.rego") })
	compiler := ast.NewCompiler()
	if compiler.Compile(rules); compiler.Failed() {
		return nil, fmt.Errorf("the rule book: %w", compiler.Errors)
	}
	// Each group's query asks each of its rules' deny alone: asking
	// data.preflight.rules evaluated every helper rule of every file and
	// made JSON of it all.
	byKeys := map[string]*group{}
	denies := map[*group][]string{}
	reads := map[*ast.Module]moduleReads{}
	for _, r := range b.Rules {
		keys := inputParts(compiler, r.Package, reads)
		id := strings.Join(keys, " ")
		if keys == nil {
			id = "*"
		}
		g := byKeys[id]
		if g == nil {
			g = &group{keys: keys}
			byKeys[id] = g
			b.groups = append(b.groups, g)
		}
		denies[g] = append(denies[g], fmt.Sprintf("%q: [d | some d in data.%s.deny]", r.Package, r.Package))
	}
	for _, g := range b.groups {
		g.query, err = rego.New(rego.Compiler(compiler), rego.Query("{"+strings.Join(denies[g], ", ")+"}")).PrepareForEval(context.Background())
		if err != nil {
			return nil, fmt.Errorf("the rule book: %w", err)
		}
	}
	return b, nil
}

// inputParts are the keys of input that the rule package pkg reads, with
// the packages it calls, sorted; nil when one of them reads input by a
// variable or whole. reads keeps each module's walk (readsOf) for the
// next rule.
func inputParts(c *ast.Compiler, pkg string, reads map[*ast.Module]moduleReads) []string {
	keys := map[string]bool{}
	whole := false
	done := map[*ast.Module]bool{}
	var visit func(path ast.Ref)
	visit = func(path ast.Ref) {
		for _, m := range c.Modules {
			if !path.HasPrefix(m.Package.Path) && !m.Package.Path.HasPrefix(path) || done[m] {
				continue
			}
			done[m] = true
			r, ok := reads[m]
			if !ok {
				r = readsOf(m)
				reads[m] = r
			}
			for _, k := range r.keys {
				keys[k] = true
			}
			whole = whole || r.whole
			for _, d := range r.data {
				visit(d)
			}
		}
	}
	visit(ast.MustParseRef("data." + pkg))
	if whole {
		return nil
	}
	return slices.Sorted(maps.Keys(keys))
}

// moduleReads is what one module reads: the keys of input, whether it
// reads input whole, and the documents of data it refers to.
type moduleReads struct {
	keys  []string
	whole bool
	data  []ast.Ref
}

func readsOf(m *ast.Module) moduleReads {
	var r moduleReads
	seen := map[string]bool{}
	ast.WalkRefs(m, func(ref ast.Ref) bool {
		switch {
		case ref[0].Equal(ast.InputRootDocument) && len(ref) > 1:
			if k, ok := ref[1].Value.(ast.String); ok {
				r.keys = append(r.keys, string(k))
			} else {
				r.whole = true
			}
		case ref[0].Equal(ast.InputRootDocument):
			r.whole = true
		case ref[0].Equal(ast.DefaultRootDocument) && !seen[ref.ConstantPrefix().String()]:
			seen[ref.ConstantPrefix().String()] = true
			r.data = append(r.data, ref.ConstantPrefix())
		}
		return false
	})
	return r
}

// ruleOf reads a rule's package METADATA.
func ruleOf(m *ast.Module, file, pkg string) (Rule, error) {
	for _, a := range m.Annotations {
		if a.Scope != "package" {
			continue
		}
		s := func(k string) string { v, _ := a.Custom[k].(string); return strings.TrimSpace(v) }
		r := Rule{ID: s("id"), Title: a.Title, Danger: s("danger"), Fix: s("fix"), Package: pkg, File: file}
		if len(a.RelatedResources) > 0 {
			r.Source = a.RelatedResources[0].Ref.String()
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
	var out []Finding
	for _, g := range b.groups {
		found, err := b.evalGroup(ctx, g, in)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	sortFindings(out)
	return out, nil
}

// evalGroup is the findings of g's rules: an answer it keeps for parts equal
// to in's, else its query's.
func (b *Book) evalGroup(ctx context.Context, g *group, in ast.Value) ([]Finding, error) {
	parts := []ast.Value{in}
	if obj, ok := in.(ast.Object); ok && g.keys != nil {
		parts = make([]ast.Value, len(g.keys))
		for i, k := range g.keys {
			if t := obj.Get(ast.StringTerm(k)); t != nil {
				parts[i] = t.Value
			}
		}
	}
	g.mu.Lock()
	for i, a := range g.seen {
		if equalParts(a.parts, parts) {
			copy(g.seen[1:i+1], g.seen[:i])
			g.seen[0] = a
			g.mu.Unlock()
			return a.findings, nil
		}
	}
	g.mu.Unlock()
	rs, err := g.query.Eval(ctx, rego.EvalParsedInput(in))
	if err != nil {
		return nil, fmt.Errorf("the rule book: %w", err)
	}
	if len(rs) != 1 || len(rs[0].Expressions) != 1 {
		return nil, fmt.Errorf("the rule book gave %d results", len(rs))
	}
	var found []Finding
	by, _ := rs[0].Expressions[0].Value.(map[string]any)
	for pkg, deny := range by {
		r := b.byPkg[pkg]
		for _, d := range deny.([]any) {
			f, _ := d.(map[string]any)
			found = append(found, Finding{ID: r.ID, File: str(f["file"]), Line: num(f["line"]), Rule: cmp.Or(str(f["msg"]), r.Danger), Fix: cmp.Or(str(f["fix"]), r.Fix)})
		}
	}
	found = slices.Clip(found) // the caller appends to what it gets
	g.mu.Lock()
	g.seen = slices.Insert(g.seen, 0, answer{parts, found})
	g.seen = g.seen[:min(len(g.seen), keptAnswers)]
	g.mu.Unlock()
	return found, nil
}

// equalParts says whether two inputs' parts are equal: the same value (the
// stack part is shared by the Checks of stacks alike), or equal by hash and
// then by value.
func equalParts(x, y []ast.Value) bool {
	for i := range x {
		switch {
		case x[i] == nil || y[i] == nil:
			if x[i] != nil || y[i] != nil {
				return false
			}
		case samePointer(x[i], y[i]):
		case x[i].Hash() != y[i].Hash() || x[i].Compare(y[i]) != 0:
			return false
		}
	}
	return true
}

// samePointer says whether x and y are one composite value.
func samePointer(x, y ast.Value) bool {
	switch x.(type) {
	case ast.Object, ast.Set, *ast.Array:
		return x == y
	}
	return false
}

func str(v any) string {
	switch s := v.(type) {
	case nil:
		return ""
	case string:
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
