package preflight

import (
	"context"
	"testing"
)

// BenchmarkBookEval is one evaluation of the rule book over the
// repository's facts as a Check with nothing kept makes it (bin/preflight's
// one): the stack part in OPA's form already, the rest converted per call,
// every group of rules asked:
// go test -run '^$' -bench BookEval ./tools/preflight
func BenchmarkBookEval(b *testing.B) {
	book, err := LoadBook()
	if err != nil {
		b.Fatal(err)
	}
	facts, stacks, _, err := checkFacts(repoRoot)
	if err != nil {
		b.Fatal(err)
	}
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
