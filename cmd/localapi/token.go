package main

import (
	"fmt"
	"io"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
)

// tokenTTL is how long a printed token is valid.
const tokenTTL = 24 * time.Hour

// printToken prints a token that secret signs for spec (its IssuedAt and
// TTL are set here) and a curl line that creates a plant with it. The line
// names a fresh id (the time in seconds), so that it creates a plant even
// on a store that fixtures or earlier runs have filled. note, when not
// empty, follows the validity on the token's line.
func printToken(w io.Writer, secret []byte, spec auth.TokenSpec, url, note string, now time.Time) error {
	spec.IssuedAt, spec.TTL = now, tokenTTL
	tok, err := auth.NewHS256Token(secret, spec)
	if err != nil {
		return fmt.Errorf("sign a token: %w", err)
	}
	scope := ""
	if spec.Scope != "" {
		scope = ", scope " + spec.Scope
	}
	fmt.Fprintf(w, "Token (valid %s%s%s):\n%s\n", tokenTTL, scope, note, tok)
	fmt.Fprintf(w, "Try:\ncurl -i %s/plants -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"id\":%d,\"name\":\"Monstera\",\"tag\":\"indoor\"}'\n", url, tok, now.Unix())
	return nil
}
