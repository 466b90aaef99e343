package auth

import (
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// Cached remembers the tokens its Verifier accepted, for up to ttl and never
// past a token's exp, as API Gateway caches its authorizer's answers. Refused
// tokens are not remembered. Entries are keyed by the token's SHA-256, so a
// lookup's timing says nothing about stored tokens, and their number is
// bounded: when full, the cache starts over.
type Cached struct {
	v   *Verifier
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[[sha256.Size]byte]cachedPrincipal
}

type cachedPrincipal struct {
	p     Principal
	until time.Time
}

// NewCached returns v with a cache of at most maxEntries tokens.
func NewCached(v *Verifier, ttl time.Duration, maxEntries int, now func() time.Time) *Cached {
	return &Cached{v: v, ttl: ttl, max: maxEntries, now: now, entries: map[[sha256.Size]byte]cachedPrincipal{}}
}

// VerifyHeader is Verifier.VerifyHeader with the cache in front.
func (c *Cached) VerifyHeader(ctx context.Context, header string) (Principal, error) {
	token, err := BearerToken(header)
	if err != nil {
		return Principal{}, err
	}
	key := sha256.Sum256([]byte(token))
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		return e.p, nil
	}
	p, err := c.v.Verify(ctx, token)
	if err != nil {
		return p, err
	}
	until := now.Add(c.ttl)
	if !p.ExpiresAt.IsZero() && p.ExpiresAt.Before(until) {
		until = p.ExpiresAt
	}
	c.mu.Lock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[key] = cachedPrincipal{p: p, until: until}
	c.mu.Unlock()
	return p, nil
}
