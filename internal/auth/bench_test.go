package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/auth"
)

// BenchmarkVerify measures one token verification per algorithm, keys cached.
func BenchmarkVerify(b *testing.B) {
	k := testKeys()
	srv := newJWKSServer(b, publicKeys())
	v, err := auth.NewVerifier(b.Context(), auth.Config{Issuer: issuer, Audience: audience, HS256Secret: secret, JWKSURL: srv.URL, Now: func() time.Time { return now }})
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		alg string
		m   jwt.SigningMethod
		key any
		kid string
	}{
		{"HS256", jwt.SigningMethodHS256, secret, ""},
		{"RS256", jwt.SigningMethodRS256, k.rsa, "rsa1"},
		{"ES256", jwt.SigningMethodES256, k.ec, "ec1"},
		{"EdDSA", jwt.SigningMethodEdDSA, k.ed, "ed1"},
	} {
		tok := jwt.NewWithClaims(bc.m, good())
		if bc.kid != "" {
			tok.Header["kid"] = bc.kid
		}
		s, err := tok.SignedString(bc.key)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(bc.alg, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(context.Background(), s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
