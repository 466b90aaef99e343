// Package auth verifies bearer tokens as docs/design.md ("Bearer tokens") states them: JWTs
// signed with an HS256 secret or with keys from a JWKS URL, checked for issuer,
// audience, lifetime and an optional scope. It knows nothing of Lambda.
package auth

import (
	"errors"
	"strings"
	"time"
)

var (
	// ErrNoToken means the request has no bearer token: no Authorization
	// header, or one of another scheme.
	ErrNoToken = errors.New("no bearer token")
	// ErrInvalidToken means a token was given and is not acceptable: bad
	// syntax, signature, algorithm, issuer, audience or lifetime.
	ErrInvalidToken = errors.New("invalid token")
	// ErrInsufficientScope means the token is valid but lacks the required scope.
	ErrInsufficientScope = errors.New("insufficient scope")
)

// BearerToken returns the token of an Authorization header value of the form
// "Bearer <token>" (the scheme word in any case, RFC 6750 section 2.1).
func BearerToken(header string) (string, error) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", ErrNoToken
	}
	token = strings.Trim(token, " ")
	if token == "" || strings.ContainsAny(token, " \t\r\n") {
		return "", ErrInvalidToken
	}
	return token, nil
}

// Principal is who a verified token speaks for.
type Principal struct {
	Subject   string
	Scopes    []string
	ExpiresAt time.Time // the token's exp
}
