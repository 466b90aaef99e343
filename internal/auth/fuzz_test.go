package auth_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/auth"
)

// FuzzVerifyHeader: whatever the Authorization header, nothing but the one
// token signed with the configured secret is accepted, and nothing panics.
func FuzzVerifyHeader(f *testing.F) {
	v, err := auth.NewVerifier(context.Background(), auth.Config{
		Issuer: issuer, Audience: audience, HS256Secret: secret,
		Now: func() time.Time { return now },
	})
	if err != nil {
		f.Fatal(err)
	}
	valid, err := jwt.NewWithClaims(jwt.SigningMethodHS256, good()).SignedString(secret)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Bearer " + valid)
	f.Add("bearer  " + valid + " ")
	f.Add("Bearer " + valid[:len(valid)-1])
	f.Add("Bearer " + strings.Replace(valid, ".", "..", 1))
	f.Add("Basic dXNlcjpwYXNz")
	f.Add("Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
	f.Add("")
	f.Fuzz(func(t *testing.T, header string) {
		p, err := v.VerifyHeader(context.Background(), header)
		if err != nil {
			return
		}
		tok, _ := auth.BearerToken(header)
		if tok != valid {
			t.Fatalf("accepted a token that was not the signed one: %q (principal %+v)", header, p)
		}
	})
}
