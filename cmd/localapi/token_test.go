package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
)

func TestPrintToken(t *testing.T) {
	t.Parallel()
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	spec := auth.TokenSpec{Issuer: "i", Audience: "a", Subject: "dev", Scope: "plants/write"}
	if err := printToken(&b, secret, spec, "http://127.0.0.1:3000", "; note", now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "Token (valid 24h0m0s, scope plants/write; note):") {
		t.Fatalf("banner:\n%s", b.String())
	}
	v, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: "i", Audience: "a", HS256Secret: secret, RequiredScope: "plants/write", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := v.Verify(context.Background(), lines[1]); err != nil || p.Subject != "dev" {
		t.Errorf("the printed token: %+v, %v", p, err)
	}
	if !strings.Contains(lines[3], `{"id":1795435200,`) || !strings.Contains(lines[3], "Bearer "+lines[1]) {
		t.Errorf("curl line %q: want the token and id %d", lines[3], now.Unix())
	}
}

// Run prints the URL it listens on before it serves, keeps its bounds, and
// stops cleanly with one line.
