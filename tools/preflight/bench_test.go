package preflight

import (
	"context"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// BenchmarkBookEval is one evaluation of the rule book over the
// repository's facts as a Check with nothing kept makes it (bin/preflight's
// one): the stack part in OPA's form already, the rest converted per call,
// every group of rules asked:
// go test -run '^$' -bench BookEval ./tools/preflight
func BenchmarkBookEval(b *testing.B) {
	book, facts, stacks := repoBook(b)
	for b.Loop() {
		for _, g := range book.groups {
			g.seen = nil
		}
		in, err := inputOf(facts, stacks)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := book.evalValue(context.Background(), in); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFacts is reading the repository's facts as each Check of an
// edited copy does, the stack part kept from the first (stacksOf keeps it
// by its inputs' content):
// go test -run '^$' -bench ReadFacts ./tools/preflight
func BenchmarkReadFacts(b *testing.B) {
	for b.Loop() {
		if _, _, err := readFacts(repoRoot); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRuleEval is each rule's deny alone over the repository's facts,
// its helpers and libraries evaluated for it: where a slow rule shows
// before it slows every Check:
// go test -run '^$' -bench RuleEval -benchtime 20x ./tools/preflight
func BenchmarkRuleEval(b *testing.B) {
	book, facts, stacks := repoBook(b)
	in, err := inputOf(facts, stacks)
	if err != nil {
		b.Fatal(err)
	}
	rules := map[string]*ast.Module{}
	for p, m := range book.modules {
		if !strings.HasSuffix(p, "_test.rego") {
			rules[p] = m
		}
	}
	compiler := ast.NewCompiler()
	if compiler.Compile(rules); compiler.Failed() {
		b.Fatal(compiler.Errors)
	}
	for _, r := range book.Rules {
		q, err := rego.New(rego.Compiler(compiler), rego.Query("[d | some d in data."+r.Package+".deny]")).PrepareForEval(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.Run(r.ID, func(b *testing.B) {
			for b.Loop() {
				if _, err := q.Eval(context.Background(), rego.EvalParsedInput(in)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// repoBook is the rule book with the repository's facts, as Check reads
// them.
func repoBook(b *testing.B) (*Book, map[string]any, *stackPart) {
	b.Helper()
	book, err := LoadBook()
	if err != nil {
		b.Fatal(err)
	}
	facts, stacks, _, err := checkFacts(repoRoot)
	if err != nil {
		b.Fatal(err)
	}
	return book, facts, stacks
}
