package auth

import (
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// TokenSpec describes a token to sign with NewHS256Token.
type TokenSpec struct {
	Issuer, Audience, Subject string
	Scope                     string // space-separated, optional
	IssuedAt                  time.Time
	TTL                       time.Duration
}

// NewHS256Token signs a token that a Verifier with the same secret, issuer and
// audience accepts. The local API prints one; tests and fixtures use it too.
func NewHS256Token(secret []byte, s TokenSpec) (string, error) {
	c := struct {
		jwt.RegisteredClaims
		Scope string `json:"scope,omitempty"`
	}{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.Issuer,
			Subject:   s.Subject,
			Audience:  jwt.ClaimStrings{s.Audience},
			IssuedAt:  jwt.NewNumericDate(s.IssuedAt),
			ExpiresAt: jwt.NewNumericDate(s.IssuedAt.Add(s.TTL)),
		},
		Scope: s.Scope,
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
}
