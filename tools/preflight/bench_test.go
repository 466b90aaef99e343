package preflight

import (
	"context"
	"testing"
)

// BenchmarkBookEval is one evaluation of the rule book over the
// repository's facts, as each Check (and each row of an edit table) makes
// it: go test -run '^$' -bench BookEval ./tools/preflight
func BenchmarkBookEval(b *testing.B) {
	book, err := LoadBook()
	if err != nil {
		b.Fatal(err)
	}
	facts, stacks, err := readFacts(repoRoot)
	if err != nil {
		b.Fatal(err)
	}
	facts["access"] = stacks.access
	for b.Loop() {
		if _, err := book.Eval(context.Background(), facts); err != nil {
			b.Fatal(err)
		}
	}
}
