package auth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/auth"
)

func TestCached(t *testing.T) {
	t.Parallel()
	clock := now
	tick := func() time.Time { return clock }
	v, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: issuer, Audience: audience, HS256Secret: secret, RequiredScope: "s", Now: tick})
	if err != nil {
		t.Fatal(err)
	}
	c := auth.NewCached(v, 5*time.Minute, 2, tick)
	ctx := context.Background()
	short := sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", "s", "exp", now.Add(2*time.Minute).Unix()))
	long := sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", "s", "exp", now.Add(time.Hour).Unix()))
	noScope := sign(t, jwt.SigningMethodHS256, secret, "", good())

	for _, tok := range []string{short, long} {
		if p, err := c.VerifyHeader(ctx, "Bearer "+tok); err != nil || p.Subject != "user-1" {
			t.Fatalf("first verify: %+v, %v", p, err)
		}
	}
	if _, err := c.VerifyHeader(ctx, "Bearer "+long+"x"); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a tampered cached token: %v, want ErrInvalidToken", err)
	}
	if _, err := c.VerifyHeader(ctx, "Bearer "+noScope); !errors.Is(err, auth.ErrInsufficientScope) {
		t.Errorf("no scope: %v", err)
	}
	if _, err := c.VerifyHeader(ctx, "Bearer "+noScope); !errors.Is(err, auth.ErrInsufficientScope) {
		t.Errorf("a refused token was cached: %v", err)
	}
	// Past exp (plus the verifier's leeway), the cached answer is gone.
	clock = now.Add(2*time.Minute + auth.Leeway + time.Second)
	if _, err := c.VerifyHeader(ctx, "Bearer "+short); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("expired token after its cache entry: %v, want ErrInvalidToken", err)
	}
	if _, err := c.VerifyHeader(ctx, "Bearer "+long); err != nil {
		t.Errorf("long token: %v", err)
	}
	if _, err := c.VerifyHeader(ctx, "Basic x"); !errors.Is(err, auth.ErrNoToken) {
		t.Errorf("Basic: %v", err)
	}
}

func BenchmarkCachedVerify(b *testing.B) {
	v, _ := auth.NewVerifier(context.Background(), auth.Config{Issuer: issuer, Audience: audience, HS256Secret: secret, Now: func() time.Time { return now }})
	c := auth.NewCached(v, 5*time.Minute, 1024, func() time.Time { return now })
	h := "Bearer " + sign(b, jwt.SigningMethodHS256, secret, "", good())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.VerifyHeader(context.Background(), h); err != nil {
			b.Fatal(err)
		}
	}
}
