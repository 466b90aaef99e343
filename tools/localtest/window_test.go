package localtest

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/samlocal/gateway/gatewaytest"
)

// The longest an expired token is honoured on the deployed path: the
// verifier's clock-skew leeway (auth.Leeway, 60 s) plus the gateway's cache
// (ReauthorizeEvery, 300 s), so just under 360 s after exp. The authorizer
// here is the real verifier on the gateway's frozen clock.
func TestAnExpiredTokenPassesForLessThan360Seconds(t *testing.T) {
	t.Parallel()
	secret := []byte("0123456789abcdef0123456789abcdef")
	var c *gatewaytest.Clock
	authorizer := func(payload []byte) ([]byte, bool, error) {
		v, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: "i", Audience: "a", HS256Secret: secret, Now: c.Now})
		if err != nil {
			return nil, false, err
		}
		var ev struct {
			AuthorizationToken string `json:"authorizationToken"`
		}
		if err := json.Unmarshal(payload, &ev); err != nil {
			return nil, false, err
		}
		if _, err := v.VerifyHeader(context.Background(), ev.AuthorizationToken); errors.Is(err, auth.ErrInvalidToken) {
			return gatewaytest.Unauthorized(payload)
		}
		return gatewaytest.Allow(payload)
	}
	g, f, c0 := newGateway(t, authorizer, gatewaytest.Created)
	c = c0
	exp := c.Now()
	tok, err := auth.NewHS256Token(secret, auth.TokenSpec{Issuer: "i", Audience: "a", Subject: "s", IssuedAt: exp.Add(-time.Hour), TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	bearer := "Bearer " + tok
	steps := []struct {
		at   time.Duration // after exp
		want int
	}{
		{59 * time.Second, 200},                   // inside the leeway: verified, cached for 300 s
		{358 * time.Second, 200},                  // from the cache, 358 s after exp
		{359*time.Second - time.Millisecond, 200}, // the cache's last instant
		{359 * time.Second, 401},                  // the cache has lapsed; verified again, refused
	}
	for _, s := range steps {
		c.Advance(exp.Add(s.at).Sub(c.Now()))
		if a := gatewaytest.Send(g, "POST", "/plants", bearer); a.Status != s.want {
			t.Errorf("%s after exp: %d %s, want %d", s.at, a.Status, a.Body, s.want)
		}
	}
	if n := f.Count("AuthorizerFunction"); n != 2 {
		t.Errorf("authorizer called %d times, want 2 (once in the leeway, once after the cache lapsed)", n)
	}
	// A token first shown after the leeway is refused at once.
	late, _ := auth.NewHS256Token(secret, auth.TokenSpec{Issuer: "i", Audience: "a", Subject: "t", IssuedAt: c.Now().Add(-time.Hour - 61*time.Second), TTL: time.Hour})
	if a := gatewaytest.Send(g, "POST", "/plants", "Bearer "+late); a.Status != 401 {
		t.Errorf("a token 61 s past exp: %d, want 401", a.Status)
	}
}
