// Package dynamoemutest is what tests share to run against the
// DynamoDB-compatible servers that dynamoemu starts: each server started
// once per test binary (Moto, Dynalite), Main to stop them, and the check that a front answers only
// the run's signed requests (AnswersOnlySigned, signed.go). A test that
// needs a server skips when it is not installed, except under CI=true,
// where it fails: CI must run every test.
package dynamoemutest

import (
	"os"
	"sync"
	"testing"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

type shared struct {
	once sync.Once
	srv  *dynamoemu.Server
	err  error
}

var moto, dynalite shared

// Moto returns the shared moto_server. It returns the old item on a failed
// condition; its front passes on one request at a time, as its own
// conditional writes are not atomic.
func Moto(t testing.TB) *dynamoemu.Server {
	t.Helper()
	return get(t, &moto, "moto", dynamoemu.StartMoto)
}

// Dynalite returns the shared in-memory dynalite. It serializes writes per
// item and ignores ReturnValuesOnConditionCheckFailure.
func Dynalite(t testing.TB) *dynamoemu.Server {
	t.Helper()
	return get(t, &dynalite, "dynalite", func() (*dynamoemu.Server, error) { return dynamoemu.StartDynalite("") })
}

// Main runs the tests, then the after functions, then stops the servers the
// tests started and any other child process (childproc.StopAll), and exits.
func Main(m *testing.M, after ...func()) {
	code := m.Run()
	for _, f := range after {
		f()
	}
	for _, s := range []*shared{&moto, &dynalite} {
		if s.srv != nil {
			s.srv.Stop()
		}
	}
	childproc.StopAll()
	os.Exit(code)
}

func get(t testing.TB, s *shared, name string, start func() (*dynamoemu.Server, error)) *dynamoemu.Server {
	t.Helper()
	s.once.Do(func() { s.srv, s.err = start() })
	if s.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v", name, s.err)
		}
		t.Skipf("%s: %v (make test starts it)", name, s.err)
	}
	return s.srv
}
