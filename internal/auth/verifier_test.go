package auth_test

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/auth"
)

const (
	issuer   = "https://issuer.example"
	audience = "plantstore"
)

var (
	now    = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	secret = []byte("0123456789abcdef0123456789abcdef")
)

// keys are the test's signing keys; the JWKS server publishes their public halves.
type keys struct {
	rsa   *rsa.PrivateKey
	ec    *ecdsa.PrivateKey
	ed    ed25519.PrivateKey
	other *rsa.PrivateKey // never published
}

var testKeys = sync.OnceValue(func() keys {
	r, _ := rsa.GenerateKey(rand.Reader, 2048)
	o, _ := rsa.GenerateKey(rand.Reader, 2048)
	e, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	_, d, _ := ed25519.GenerateKey(rand.Reader)
	return keys{rsa: r, ec: e, ed: d, other: o}
})

// jwksServer serves the public keys given (kid -> key) and counts fetches.
type jwksServer struct {
	*httptest.Server
	mu      sync.Mutex
	body    []byte
	fetches atomic.Int32
}

func newJWKSServer(t testing.TB, pub map[string]crypto.PublicKey) *jwksServer {
	t.Helper()
	s := &jwksServer{}
	s.publish(t, pub)
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.fetches.Add(1)
		s.mu.Lock()
		defer s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		w.Write(s.body)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *jwksServer) publish(t testing.TB, pub map[string]crypto.PublicKey) {
	t.Helper()
	store := jwkset.NewMemoryStorage()
	for kid, k := range pub {
		jwk, err := jwkset.NewJWKFromKey(k, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid}})
		if err != nil {
			t.Fatal(err)
		}
		if err := store.KeyWrite(context.Background(), jwk); err != nil {
			t.Fatal(err)
		}
	}
	body, err := store.JSONPublic(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	s.body = body
	s.mu.Unlock()
}

func publicKeys() map[string]crypto.PublicKey {
	k := testKeys()
	return map[string]crypto.PublicKey{"rsa1": &k.rsa.PublicKey, "ec1": &k.ec.PublicKey, "ed1": k.ed.Public()}
}

func newVerifier(t *testing.T, cfg auth.Config) *auth.Verifier {
	t.Helper()
	if cfg.Issuer == "" {
		cfg.Issuer = issuer
	}
	if cfg.Audience == "" {
		cfg.Audience = audience
	}
	cfg.Now = func() time.Time { return now }
	v, err := auth.NewVerifier(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// good returns valid claims; tests change what they test.
func good() jwt.MapClaims {
	return jwt.MapClaims{
		"iss": issuer, "aud": audience, "sub": "user-1",
		"iat": now.Add(-time.Minute).Unix(), "exp": now.Add(time.Hour).Unix(),
	}
}

func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(c, kv[i].(string))
		} else {
			c[kv[i].(string)] = kv[i+1]
		}
	}
	return c
}

func sign(t testing.TB, m jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestVerify(t *testing.T) {
	t.Parallel()
	k := testKeys()
	srv := newJWKSServer(t, publicKeys())
	both := newVerifier(t, auth.Config{HS256Secret: secret, JWKSURL: srv.URL})
	jwksOnly := newVerifier(t, auth.Config{JWKSURL: srv.URL})
	hsOnly := newVerifier(t, auth.Config{HS256Secret: secret})
	scoped := newVerifier(t, auth.Config{HS256Secret: secret, RequiredScope: "plants/write"})

	rsaPubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&k.rsa.PublicKey))})
	none := sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "", good())

	tests := []struct {
		name    string
		v       *auth.Verifier
		token   string
		wantErr error
		wantSub string
	}{
		{"HS256", both, sign(t, jwt.SigningMethodHS256, secret, "", good()), nil, "user-1"},
		{"RS256", both, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good()), nil, "user-1"},
		{"ES256", both, sign(t, jwt.SigningMethodES256, k.ec, "ec1", good()), nil, "user-1"},
		{"EdDSA", jwksOnly, sign(t, jwt.SigningMethodEdDSA, k.ed, "ed1", good()), nil, "user-1"},
		{"RS256 without kid", jwksOnly, sign(t, jwt.SigningMethodRS256, k.rsa, "", good()), nil, "user-1"},
		{"aud array", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "aud", []string{"x", audience})), nil, "user-1"},
		{"client_id without aud", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "aud", nil, "client_id", audience)), nil, "user-1"},
		{"expired within leeway", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "exp", now.Add(-50*time.Second).Unix())), nil, "user-1"},
		{"nbf within leeway", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "nbf", now.Add(50*time.Second).Unix())), nil, "user-1"},
		{"scope string", scoped, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", "a plants/write b")), nil, "user-1"},
		{"scp array", scoped, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scp", []string{"plants/write"})), nil, "user-1"},
		{"scp string", scoped, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scp", "plants/write")), nil, "user-1"},

		{"expired", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "exp", now.Add(-61*time.Second).Unix())), auth.ErrInvalidToken, ""},
		{"no exp", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "exp", nil)), auth.ErrInvalidToken, ""},
		{"future nbf", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "nbf", now.Add(2*time.Minute).Unix())), auth.ErrInvalidToken, ""},
		{"future iat", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "iat", now.Add(2*time.Minute).Unix())), auth.ErrInvalidToken, ""},
		{"wrong issuer", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "iss", "https://evil.example")), auth.ErrInvalidToken, ""},
		{"no issuer", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "iss", nil)), auth.ErrInvalidToken, ""},
		{"wrong audience", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "aud", "other")), auth.ErrInvalidToken, ""},
		{"wrong client_id", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "aud", nil, "client_id", "other")), auth.ErrInvalidToken, ""},
		{"no subject", hsOnly, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "sub", nil)), auth.ErrInvalidToken, ""},
		{"wrong secret", hsOnly, sign(t, jwt.SigningMethodHS256, []byte("another-secret-of-32-bytes-or-more!!"), "", good()), auth.ErrInvalidToken, ""},
		{"unpublished RSA key", jwksOnly, sign(t, jwt.SigningMethodRS256, k.other, "rsa1", good()), auth.ErrInvalidToken, ""},
		{"unknown kid", jwksOnly, sign(t, jwt.SigningMethodRS256, k.other, "nope", good()), auth.ErrInvalidToken, ""},
		{"alg none", both, none, auth.ErrInvalidToken, ""},
		{"HS256 signed with the RSA public key, JWKS only", jwksOnly, sign(t, jwt.SigningMethodHS256, rsaPubPEM, "rsa1", good()), auth.ErrInvalidToken, ""},
		{"HS256 signed with the RSA public key, both", both, sign(t, jwt.SigningMethodHS256, rsaPubPEM, "rsa1", good()), auth.ErrInvalidToken, ""},
		{"RS256 to an HS256-only verifier", hsOnly, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good()), auth.ErrInvalidToken, ""},
		{"ES256 naming the RSA key", jwksOnly, sign(t, jwt.SigningMethodES256, k.ec, "rsa1", good()), auth.ErrInvalidToken, ""},
		{"RS256 naming the EC key", jwksOnly, sign(t, jwt.SigningMethodRS256, k.rsa, "ec1", good()), auth.ErrInvalidToken, ""},
		{"RS384 not accepted", jwksOnly, sign(t, jwt.SigningMethodRS384, k.rsa, "rsa1", good()), auth.ErrInvalidToken, ""},
		{"HS512 not accepted", hsOnly, sign(t, jwt.SigningMethodHS512, secret, "", good()), auth.ErrInvalidToken, ""},
		{"garbage", both, "not-a-jwt", auth.ErrInvalidToken, ""},
		{"three garbage parts", both, "a.b.c", auth.ErrInvalidToken, ""},
		{"scope as number", scoped, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", 7)), auth.ErrInvalidToken, ""},

		{"missing scope", scoped, sign(t, jwt.SigningMethodHS256, secret, "", good()), auth.ErrInsufficientScope, "user-1"},
		{"scope prefix only", scoped, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", "plants/writer")), auth.ErrInsufficientScope, "user-1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := tt.v.Verify(context.Background(), tt.token)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Verify error = %v, want %v", err, tt.wantErr)
			}
			if p.Subject != tt.wantSub {
				t.Errorf("subject = %q, want %q", p.Subject, tt.wantSub)
			}
		})
	}
}

func TestBearerToken(t *testing.T) {
	t.Parallel()
	tests := []struct {
		header, want string
		wantErr      error
	}{
		{"Bearer abc.def.ghi", "abc.def.ghi", nil},
		{"bearer abc", "abc", nil},
		{"BEARER abc", "abc", nil},
		{"Bearer   abc  ", "abc", nil},
		{"", "", auth.ErrNoToken},
		{"Bearer", "", auth.ErrNoToken},
		{"Basic dXNlcjpwYXNz", "", auth.ErrNoToken},
		{"Bearerabc", "", auth.ErrNoToken},
		{"Token abc", "", auth.ErrNoToken},
		{"Bearer ", "", auth.ErrInvalidToken},
		{"Bearer a b", "", auth.ErrInvalidToken},
		{"Bearer a\tb", "", auth.ErrInvalidToken},
	}
	for _, tt := range tests {
		got, err := auth.BearerToken(tt.header)
		if got != tt.want || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", tt.header, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestNewVerifierRejectsBadConfig(t *testing.T) {
	t.Parallel()
	tests := map[string]auth.Config{
		"no issuer":        {Audience: audience, HS256Secret: secret},
		"no audience":      {Issuer: issuer, HS256Secret: secret},
		"no key source":    {Issuer: issuer, Audience: audience},
		"short secret":     {Issuer: issuer, Audience: audience, HS256Secret: []byte("short")},
		"empty secret":     {Issuer: issuer, Audience: audience, HS256Secret: []byte{}},
		"http JWKS":        {Issuer: issuer, Audience: audience, JWKSURL: "http://keys.example/jwks.json"},
		"file JWKS":        {Issuer: issuer, Audience: audience, JWKSURL: "file:///etc/passwd"},
		"relative JWKS":    {Issuer: issuer, Audience: audience, JWKSURL: "/jwks.json"},
		"unparsable JWKS":  {Issuer: issuer, Audience: audience, JWKSURL: "https://[::1"},
		"http on non-loop": {Issuer: issuer, Audience: audience, JWKSURL: "http://10.0.0.1/jwks"},
	}
	for name, cfg := range tests {
		if _, err := auth.NewVerifier(context.Background(), cfg); err == nil {
			t.Errorf("%s: NewVerifier succeeded, want an error", name)
		}
	}
	for _, u := range []string{"https://cognito-idp.eu-west-1.amazonaws.com/pool/.well-known/jwks.json", "http://127.0.0.1:8080/jwks", "http://localhost/jwks", "http://[::1]:9/jwks"} {
		if _, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: issuer, Audience: audience, JWKSURL: u}); err != nil {
			t.Errorf("NewVerifier(JWKS %s): %v", u, err)
		}
	}
}

func TestJWKSFetchedLazilyAndRefreshedOnNewKid(t *testing.T) {
	t.Parallel()
	k := testKeys()
	srv := newJWKSServer(t, map[string]crypto.PublicKey{"rsa1": &k.rsa.PublicKey})
	v := newVerifier(t, auth.Config{JWKSURL: srv.URL})
	if n := srv.fetches.Load(); n != 0 {
		t.Fatalf("%d JWKS fetches before the first token, want 0", n)
	}
	for range 3 {
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good())); err != nil {
			t.Fatal(err)
		}
	}
	if n := srv.fetches.Load(); n != 1 {
		t.Fatalf("%d JWKS fetches after three tokens, want 1 (cached)", n)
	}
	// The issuer rotates to a new key: the first token with its kid refreshes.
	srv.publish(t, map[string]crypto.PublicKey{"rsa1": &k.rsa.PublicKey, "rsa2": &k.other.PublicKey})
	if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.other, "rsa2", good())); err != nil {
		t.Fatalf("token with the rotated-in key: %v", err)
	}
	// Unknown kids are rate-limited: a flood of them fetches nothing more.
	before := srv.fetches.Load()
	for range 20 {
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, "bogus", good())); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("unknown kid: error = %v, want ErrInvalidToken", err)
		}
	}
	if n := srv.fetches.Load() - before; n > 1 {
		t.Errorf("20 unknown kids caused %d JWKS fetches, want at most 1", n)
	}
}

func TestJWKSTooLargeOrDownIsRejectedNotHung(t *testing.T) {
	t.Parallel()
	k := testKeys()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(`{"keys":[` + strings.Repeat(" ", 2<<20) + `]}`))
	}))
	t.Cleanup(huge.Close)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	for name, u := range map[string]string{"too large": huge.URL, "down": down.URL} {
		t.Run(name, func(t *testing.T) {
			v := newVerifier(t, auth.Config{JWKSURL: u})
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			if _, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good())); !errors.Is(err, auth.ErrInvalidToken) {
				t.Errorf("error = %v, want ErrInvalidToken", err)
			}
		})
	}
}

// A JWKS endpoint that never answers costs a verification no more than its
// own deadline: it is refused as keys_unavailable, for the deadline, when
// the context's deadline (less the margin) has passed. No stopwatch: the
// only time bound here is a watchdog against a hang.
func TestJWKSFetchTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); hang.Close() })
	v := newVerifier(t, auth.Config{JWKSURL: hang.URL})
	tok := sign(t, jwt.SigningMethodRS256, testKeys().rsa, "rsa1", good())
	ctx, cancel := context.WithTimeout(context.Background(), auth.JWKSDeadlineMargin+time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := v.Verify(ctx, tok)
		errc <- err
	}()
	select {
	case err := <-errc:
		if got := auth.Reason(err); got != auth.ReasonKeysUnavailable || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("error = %v (reason %q), want keys_unavailable for the deadline", err, got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Verify hangs on a JWKS that never answers")
	}
}

// deadlineRecorder is a JWKS client's transport that notes each request's
// deadline, then hands it on (or, with fail, answers an error at once).
type deadlineRecorder struct {
	fail bool
	mu   sync.Mutex
	seen []time.Time // the zero time for a request without a deadline
}

func (d *deadlineRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	dl, _ := r.Context().Deadline()
	d.mu.Lock()
	d.seen = append(d.seen, dl)
	d.mu.Unlock()
	if d.fail {
		return nil, errors.New("the issuer is down")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func (d *deadlineRecorder) deadlines() []time.Time {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.seen)
}

// A key lookup has one deadline, the invocation's own (its context's
// deadline) less a margin to answer in: the first fetch and the refresh for
// an unknown kid both end by it, rather than each taking a fixed timeout of
// its own. Checked on the deadlines the fetches carry, not on a stopwatch.
func TestJWKSLookupHasOneDeadline(t *testing.T) {
	t.Parallel()
	k := testKeys()
	srv := newJWKSServer(t, map[string]crypto.PublicKey{"rsa1": &k.rsa.PublicKey})
	unknownKID := sign(t, jwt.SigningMethodRS256, k.rsa, "rsa2", good())

	t.Run("the context's deadline less the margin", func(t *testing.T) {
		rec := &deadlineRecorder{}
		v := newVerifier(t, auth.Config{JWKSURL: srv.URL, HTTPClient: &http.Client{Transport: rec}})
		invocation := time.Now().Add(time.Hour) // far: the bound is never reached here
		ctx, cancel := context.WithDeadline(context.Background(), invocation)
		defer cancel()
		// The first fetch, then a refresh for the kid the set lacks.
		if _, err := v.Verify(ctx, unknownKID); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("unknown kid: %v, want ErrInvalidToken", err)
		}
		seen := rec.deadlines()
		if len(seen) != 2 {
			t.Fatalf("%d fetches, want 2 (the first, and one refresh for the unknown kid)", len(seen))
		}
		for i, dl := range seen {
			if want := invocation.Add(-auth.JWKSDeadlineMargin); !dl.Equal(want) {
				t.Errorf("fetch %d: deadline %v, want the invocation's %v less %v", i+1, dl, invocation, auth.JWKSDeadlineMargin)
			}
		}
	})

	t.Run("without a deadline, one default", func(t *testing.T) {
		rec := &deadlineRecorder{}
		v := newVerifier(t, auth.Config{JWKSURL: srv.URL, HTTPClient: &http.Client{Transport: rec}})
		before := time.Now()
		if _, err := v.Verify(context.Background(), unknownKID); !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("unknown kid: %v, want ErrInvalidToken", err)
		}
		after := time.Now()
		seen := rec.deadlines()
		if len(seen) != 2 || !seen[0].Equal(seen[1]) {
			t.Fatalf("deadlines %v, want two fetches under one deadline", seen)
		}
		if dl := seen[0]; dl.Before(before.Add(auth.JWKSLookupDefault)) || dl.After(after.Add(auth.JWKSLookupDefault)) {
			t.Errorf("deadline %v, want %v after the call began", dl, auth.JWKSLookupDefault)
		}
	})

	t.Run("a deadline inside the margin fetches nothing", func(t *testing.T) {
		rec := &deadlineRecorder{fail: true}
		v := newVerifier(t, auth.Config{JWKSURL: srv.URL, HTTPClient: &http.Client{Transport: rec}})
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(auth.JWKSDeadlineMargin/2))
		defer cancel()
		_, err := v.Verify(ctx, sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good()))
		if got := auth.Reason(err); got != auth.ReasonKeysUnavailable {
			t.Errorf("reason %q (%v), want keys_unavailable", got, err)
		}
		if n := len(rec.deadlines()); n != 0 {
			t.Errorf("%d fetches with no time left to make one, want 0", n)
		}
		// Nothing was tried, so the next verification with time fetches.
		if _, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good())); auth.Reason(err) != auth.ReasonKeysUnavailable {
			t.Errorf("with the issuer down: %v, want keys_unavailable", err)
		}
		if n := len(rec.deadlines()); n != 1 {
			t.Errorf("%d fetches, want 1", n)
		}
	})
}

// The key set is fetched again when it is older than an hour, by the
// Verifier's clock; a failed refresh keeps the keys there were, and is tried
// again no sooner than a minute later.
func TestJWKSRefreshedHourly(t *testing.T) {
	t.Parallel()
	k := testKeys()
	srv := newJWKSServer(t, map[string]crypto.PublicKey{"rsa1": &k.rsa.PublicKey})
	var down atomic.Bool
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			srv.fetches.Add(1)
			http.Error(w, "down", http.StatusServiceUnavailable)
			return
		}
		srv.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	var logs syncBuffer
	clock := now
	v, err := auth.NewVerifier(t.Context(), auth.Config{
		Issuer: issuer, Audience: audience, JWKSURL: front.URL,
		Now:    func() time.Time { return clock },
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	if err != nil {
		t.Fatal(err)
	}
	verify := func(step string, wantFetches int32) {
		t.Helper()
		tok := sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", with(good(), "iat", clock.Add(-time.Minute).Unix(), "exp", clock.Add(time.Hour).Unix()))
		if _, err := v.Verify(context.Background(), tok); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		if n := srv.fetches.Load(); n != wantFetches {
			t.Fatalf("%s: %d fetches, want %d", step, n, wantFetches)
		}
	}
	verify("first use", 1)
	clock = clock.Add(59 * time.Minute)
	verify("59 minutes on", 1)
	clock = clock.Add(2 * time.Minute)
	verify("61 minutes on", 2)
	down.Store(true)
	clock = clock.Add(61 * time.Minute)
	verify("an hour later, the issuer down: the old keys serve", 3)
	verify("at once again: no new try", 3)
	clock = clock.Add(time.Minute)
	verify("a minute later: tried again", 4)
	if !strings.Contains(logs.String(), "JWKS fetch failed") {
		t.Errorf("no log line for the failed refresh:\n%s", logs.String())
	}
}

// syncBuffer is a bytes.Buffer safe for a logger and a test to share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestNewHS256TokenRoundTrip(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, auth.Config{HS256Secret: secret, RequiredScope: "plants/write"})
	tok, err := auth.NewHS256Token(secret, auth.TokenSpec{Issuer: issuer, Audience: audience, Subject: "dev", Scope: "plants/write", IssuedAt: now, TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	p, err := v.VerifyHeader(context.Background(), "Bearer "+tok)
	if err != nil || p.Subject != "dev" {
		t.Fatalf("VerifyHeader = %+v, %v; want subject dev", p, err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// newJWKSServerOf serves JWKs with the given metadata.
func newJWKSServerOf(t *testing.T, keys []jwkset.JWK) *httptest.Server {
	t.Helper()
	store := jwkset.NewMemoryStorage()
	for _, k := range keys {
		if err := store.KeyWrite(context.Background(), k); err != nil {
			t.Fatal(err)
		}
	}
	body, err := store.JSONPublic(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func jwkOf(t *testing.T, key any, kid string, use jwkset.USE, alg jwkset.ALG) jwkset.JWK {
	t.Helper()
	jwk, err := jwkset.NewJWKFromKey(key, jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid, USE: use, ALG: alg}})
	if err != nil {
		t.Fatal(err)
	}
	return jwk
}

func signHeader(t *testing.T, m jwt.SigningMethod, key any, header map[string]any, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(m, c)
	for k, v := range header {
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Signing keys only, a key's declared alg with or without kid, no crit, and
// Cognito ID tokens refused.
func TestKeyHygiene(t *testing.T) {
	t.Parallel()
	k := testKeys()
	srv := newJWKSServerOf(t, []jwkset.JWK{
		jwkOf(t, &k.rsa.PublicKey, "enc1", jwkset.UseEnc, ""),       // an encryption key
		jwkOf(t, &k.other.PublicKey, "ps1", jwkset.UseSig, "PS256"), // declared for PS256 only
		jwkOf(t, &k.ec.PublicKey, "ec1", jwkset.UseSig, "ES256"),    // declared, and right
		jwkOf(t, k.ed.Public(), "ed1", "", ""),                      // no use, no alg: a signing key
	})
	jwksOnly := newVerifier(t, auth.Config{JWKSURL: srv.URL})
	both := newVerifier(t, auth.Config{HS256Secret: secret, JWKSURL: srv.URL})
	tests := []struct {
		name   string
		v      *auth.Verifier
		token  string
		wantOK bool
	}{
		{"use enc, with kid", jwksOnly, sign(t, jwt.SigningMethodRS256, k.rsa, "enc1", good()), false},
		{"use enc, without kid", jwksOnly, sign(t, jwt.SigningMethodRS256, k.rsa, "", good()), false},
		{"declared PS256, RS256 with kid", jwksOnly, sign(t, jwt.SigningMethodRS256, k.other, "ps1", good()), false},
		{"declared PS256, RS256 without kid", jwksOnly, sign(t, jwt.SigningMethodRS256, k.other, "", good()), false},
		{"declared ES256, with kid", jwksOnly, sign(t, jwt.SigningMethodES256, k.ec, "ec1", good()), true},
		{"declared ES256, without kid", jwksOnly, sign(t, jwt.SigningMethodES256, k.ec, "", good()), true},
		{"no use, no alg, without kid", jwksOnly, sign(t, jwt.SigningMethodEdDSA, k.ed, "", good()), true},
		{"crit, HS256", both, signHeader(t, jwt.SigningMethodHS256, secret, map[string]any{"crit": []string{"exp"}}, good()), false},
		{"crit, ES256", jwksOnly, signHeader(t, jwt.SigningMethodES256, k.ec, map[string]any{"kid": "ec1", "crit": []string{"b64"}, "b64": false}, good()), false},
		{"token_use access", both, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "token_use", "access")), true},
		{"token_use id (a Cognito ID token)", both, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "token_use", "id")), false},
		{"token_use empty", both, sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "token_use", "")), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.v.Verify(context.Background(), tt.token)
			if tt.wantOK && err != nil {
				t.Fatalf("Verify = %v, want it accepted", err)
			}
			if !tt.wantOK && !errors.Is(err, auth.ErrInvalidToken) {
				t.Fatalf("Verify = %v, want ErrInvalidToken", err)
			}
		})
	}
}

// A JWKS behind two redirects is fetched; behind three it is not.
func TestJWKSRedirectsAreBounded(t *testing.T) {
	t.Parallel()
	k := testKeys()
	keys := newJWKSServer(t, publicKeys())
	redirector := func(hops int) string {
		var srv *httptest.Server
		srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n, _ := strconv.Atoi(r.URL.Query().Get("n"))
			if n >= hops {
				http.Redirect(w, r, keys.URL, http.StatusFound)
				return
			}
			http.Redirect(w, r, fmt.Sprintf("%s/?n=%d", srv.URL, n+1), http.StatusFound)
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/?n=1"
	}
	tok := sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good())
	for _, tc := range []struct {
		redirects int
		ok        bool
	}{{2, true}, {3, false}} {
		v := newVerifier(t, auth.Config{JWKSURL: redirector(tc.redirects)})
		_, err := v.Verify(context.Background(), tok)
		if (err == nil) != tc.ok {
			t.Errorf("%d redirects: Verify = %v, want accepted = %v", tc.redirects, err, tc.ok)
		}
	}
}

// signRaw signs claims exactly as written (duplicate names, any case) with HS256.
func signRaw(t *testing.T, claims string) string {
	t.Helper()
	enc := base64.RawURLEncoding
	unsigned := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(claims))
	sig, err := jwt.SigningMethodHS256.Sign(unsigned, secret)
	if err != nil {
		t.Fatal(err)
	}
	return unsigned + "." + enc.EncodeToString(sig)
}

// Claims are read by their exact names (RFC 7519, section 4): a registered
// name in another case is refused, never matched; NumericDates are numbers;
// the subject speaks for someone visible.
func TestClaimsReadExactlyAsSigned(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, auth.Config{HS256Secret: secret})
	iat, exp := now.Add(-time.Minute).Unix(), now.Add(time.Hour).Unix()
	base := fmt.Sprintf(`"iss":%q,"aud":%q,"iat":%d,"exp":%d`, issuer, audience, iat, exp)
	tests := []struct {
		name    string
		claims  string
		wantSub string // "" means refused
	}{
		{"exact names", `{` + base + `,"sub":"tester"}`, "tester"},
		{"unknown claims are ignored", `{` + base + `,"sub":"tester","role":"admin","Sub_id":"x"}`, "tester"},
		{"SUB beside sub", `{` + base + `,"sub":"tester","SUB":"admin"}`, ""},
		{"SUB before sub", `{` + base + `,"SUB":"admin","sub":"tester"}`, ""},
		{"Sub alone", `{` + base + `,"Sub":"admin"}`, ""},
		{"upper-case registered names only", fmt.Sprintf(`{"ISS":%q,"AUD":%q,"SUB":"admin","EXP":%d}`, issuer, audience, exp), ""},
		{"Exp beside exp", `{` + base + `,"sub":"tester","Exp":99999999999}`, ""},
		{"Scope in another case", `{` + base + `,"sub":"tester","SCOPE":"plants/write"}`, ""},
		{"Token_Use in another case", `{` + base + `,"sub":"tester","Token_Use":"access"}`, ""},
		{"sub twice", `{` + base + `,"sub":"tester","sub":"admin"}`, ""},
		{"exp as a string", fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"tester","exp":"%d"}`, issuer, audience, exp), ""},
		{"iat as a string", fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"tester","iat":"%d","exp":%d}`, issuer, audience, iat, exp), ""},
		{"nbf as a string", `{` + base + `,"sub":"tester","nbf":"0"}`, ""},
		{"exp as true", fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"tester","exp":true}`, issuer, audience), ""},
		{"exp with a fraction", fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"tester","exp":%d.5}`, issuer, audience, exp), "tester"},
		{"sub empty", `{` + base + `,"sub":""}`, ""},
		{"sub only spaces", `{` + base + `,"sub":"   "}`, ""},
		{"sub only a filler", `{` + base + `,"sub":"\u3164"}`, ""},
		{"sub with a newline", `{` + base + `,"sub":"tester\nadmin"}`, ""},
		{"sub with a NUL", `{` + base + `,"sub":"tester\u0000"}`, ""},
		{"sub with DEL", `{` + base + `,"sub":"a\u007f"}`, ""},
		{"sub as a number", `{` + base + `,"sub":7}`, ""},
		{"sub null", `{` + base + `,"sub":null}`, ""},
		{"sub with inner space", `{` + base + `,"sub":"a b"}`, "a b"},
		{"claims not an object", `["sub","tester"]`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := v.Verify(context.Background(), signRaw(t, tt.claims))
			if tt.wantSub == "" {
				if !errors.Is(err, auth.ErrInvalidToken) {
					t.Fatalf("Verify(%s) = %+v, %v; want ErrInvalidToken", tt.claims, p, err)
				}
				return
			}
			if err != nil || p.Subject != tt.wantSub {
				t.Fatalf("Verify(%s) = %+v, %v; want subject %q", tt.claims, p, err, tt.wantSub)
			}
		})
	}
}

// Each refusal has its class, for metrics; a JWKS that cannot be fetched is
// keys_unavailable, whatever token is shown.
func TestReason(t *testing.T) {
	t.Parallel()
	hsOnly := newVerifier(t, auth.Config{HS256Secret: secret})
	scoped := newVerifier(t, auth.Config{HS256Secret: secret, RequiredScope: "plants/write"})
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { http.Error(w, "down", http.StatusServiceUnavailable) }))
	defer down.Close()
	noKeys := newVerifier(t, auth.Config{JWKSURL: down.URL})
	k := testKeys()
	tests := []struct {
		name   string
		v      *auth.Verifier
		header string
		want   string
	}{
		{"valid", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", good()), ""},
		{"no header", hsOnly, "", auth.ReasonMissing},
		{"basic", hsOnly, "Basic abc", auth.ReasonMissing},
		{"garbage", hsOnly, "Bearer a.b.c", auth.ReasonMalformed},
		{"duplicate claim", hsOnly, "Bearer " + signRaw(t, `{"sub":"a","sub":"b"}`), auth.ReasonMalformed},
		{"wrong secret", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, []byte("another-secret-of-32-bytes-or-more!!"), "", good()), auth.ReasonBadSignature},
		{"expired", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "exp", now.Add(-time.Hour).Unix())), auth.ReasonExpired},
		{"future nbf", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "nbf", now.Add(time.Hour).Unix())), auth.ReasonNotYetValid},
		{"wrong issuer", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "iss", "x")), auth.ReasonIssuer},
		{"wrong audience", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "aud", "x")), auth.ReasonAudience},
		{"no scope", scoped, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", good()), auth.ReasonScope},
		{"no subject", hsOnly, "Bearer " + sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "sub", nil)), auth.ReasonInvalid},
		{"keys unavailable", noKeys, "Bearer " + sign(t, jwt.SigningMethodRS256, k.rsa, "rsa1", good()), auth.ReasonKeysUnavailable},
		{"keys unavailable, no kid", noKeys, "Bearer " + sign(t, jwt.SigningMethodRS256, k.rsa, "", good()), auth.ReasonKeysUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.v.VerifyHeader(context.Background(), tt.header)
			if got := auth.Reason(err); got != tt.want {
				t.Errorf("Reason(%v) = %q, want %q", err, got, tt.want)
			}
		})
	}
}
