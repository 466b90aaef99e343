package auth_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
)

// A Verifier for HS256 tokens of one issuer and audience, and a token it
// accepts. Deployed stacks use a JWKS (Config.JWKSURL) instead of a secret.
func ExampleNewVerifier() {
	secret := []byte("an example secret of at least 32 bytes!")
	v, err := auth.NewVerifier(context.Background(), auth.Config{
		Issuer: "https://issuer.example", Audience: "plantstore", HS256Secret: secret, RequiredScope: "plants/write",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	token, _ := auth.NewHS256Token(secret, auth.TokenSpec{
		Issuer: "https://issuer.example", Audience: "plantstore", Subject: "client-1",
		Scope: "plants/write", IssuedAt: time.Now(), TTL: time.Hour,
	})
	p, err := v.VerifyHeader(context.Background(), "Bearer "+token)
	fmt.Println(p.Subject, p.Scopes, err)

	_, err = v.VerifyHeader(context.Background(), "Bearer "+token+"x")
	fmt.Println(errors.Is(err, auth.ErrInvalidToken), auth.Reason(err))
	// Output:
	// client-1 [plants/write] <nil>
	// true bad_signature
}

// NewHS256Token signs the kind of token the local API prints: without the
// required scope, a Verifier answers ErrInsufficientScope and still names
// the principal.
func ExampleNewHS256Token() {
	secret := []byte("an example secret of at least 32 bytes!")
	token, err := auth.NewHS256Token(secret, auth.TokenSpec{
		Issuer: "plantstore-local", Audience: "plantstore", Subject: "reader",
		Scope: "plants/read", IssuedAt: time.Now(), TTL: 10 * time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v, _ := auth.NewVerifier(context.Background(), auth.Config{
		Issuer: "plantstore-local", Audience: "plantstore", HS256Secret: secret, RequiredScope: "plants/write",
	})
	p, err := v.Verify(context.Background(), token)
	fmt.Println(p.Subject, errors.Is(err, auth.ErrInsufficientScope), auth.Reason(err))
	// Output:
	// reader true insufficient_scope
}
