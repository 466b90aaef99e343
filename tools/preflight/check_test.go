package preflight

import (
	"context"
	"testing"
)

// The repository passes every rule of the book and every rule still in Go.
func TestRepositoryPasses(t *testing.T) {
	t.Parallel()
	findings, err := Check(context.Background(), repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}
