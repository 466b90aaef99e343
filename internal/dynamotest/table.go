// Package dynamotest is what the product's tests share beside
// dynamoemutest (the emulators): a fresh plants table per test (NewTable),
// and Counting, which counts what a store asks of the server.
package dynamotest

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

// NewTable creates a fresh plants table on s and returns its name.
func NewTable(t testing.TB, s *dynamoemu.Server) string {
	t.Helper()
	name := "plants-" + rand.Text()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dynamoemu.CreateTable(ctx, s.Client(), fixtures.PlantsTable(name)); err != nil {
		t.Fatalf("%s: %v", s.Name, err)
	}
	return name
}
