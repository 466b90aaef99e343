package auth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/plantstore/plantstore/internal/httpcap"
)

const (
	// Leeway is the clock skew allowed on exp, nbf and iat.
	Leeway = 60 * time.Second
	// MinSecretLen is the shortest HS256 secret accepted, in bytes.
	MinSecretLen = 32

	// jwksDeadlineMargin is what a key lookup leaves of its context's
	// deadline (in the authorizer, the Lambda invocation's): the fetches of
	// one lookup, the first and a refresh alike, all end by that one
	// deadline, and the function still has the margin to answer
	// "Unauthorized" and log why, before Lambda's timeout kills it.
	jwksDeadlineMargin = 500 * time.Millisecond
	// jwksLookupDefault is a lookup's time when its context has no deadline
	// (the local API's requests).
	jwksLookupDefault = 4 * time.Second
	jwksMaxBytes      = 1 << 20
	jwksRefresh       = time.Hour   // a set this old is fetched again
	jwksRetry         = time.Minute // after the first fetch, at most one a minute (unknown kids, retries)
	jwksMaxRedirects  = 2           // followed, each to an allowed URL; the next one is refused
)

// Config says which tokens a Verifier accepts. Issuer, Audience and at least
// one key source (HS256Secret or JWKSURL) are required.
type Config struct {
	Issuer        string
	Audience      string
	HS256Secret   []byte
	JWKSURL       string // https, or http on a loopback host (for tests)
	RequiredScope string // optional

	Now        func() time.Time // default time.Now; also says when the JWKS is an hour old
	HTTPClient *http.Client     // for the JWKS; default: 1 MiB cap, https-only redirects (each fetch ends by its lookup's deadline)
	Logger     *slog.Logger     // for JWKS fetch failures; default slog.Default()
}

// Verifier checks bearer tokens. It is safe for concurrent use and meant to
// live as long as the process: the JWKS is fetched on first use and cached.
type Verifier struct {
	issuer, audience, scope string
	secret                  []byte
	parser                  *jwt.Parser
	jwks                    *jwks // nil without a JWKS URL
}

// NewVerifier checks cfg and returns a Verifier. Nothing is fetched yet, and
// nothing ever runs in the background: the JWKS is fetched by the
// verifications that need it, each within its own deadline. Once ctx is
// done, no fetch begins or goes on.
func NewVerifier(ctx context.Context, cfg Config) (*Verifier, error) {
	switch {
	case cfg.Issuer == "":
		return nil, errors.New("auth: an issuer is required")
	case cfg.Audience == "":
		return nil, errors.New("auth: an audience is required")
	case cfg.HS256Secret == nil && cfg.JWKSURL == "":
		return nil, errors.New("auth: an HS256 secret or a JWKS URL is required")
	case cfg.HS256Secret != nil && len(cfg.HS256Secret) < MinSecretLen:
		return nil, fmt.Errorf("auth: the HS256 secret must be at least %d bytes", MinSecretLen)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	v := &Verifier{issuer: cfg.Issuer, audience: cfg.Audience, scope: cfg.RequiredScope}
	var methods []string
	if cfg.HS256Secret != nil {
		v.secret = cfg.HS256Secret
		methods = append(methods, jwt.SigningMethodHS256.Alg())
	}
	if cfg.JWKSURL != "" {
		u, err := url.Parse(cfg.JWKSURL)
		if err != nil || !fetchable(u) {
			return nil, fmt.Errorf("auth: the JWKS URL must be https (or http on a loopback host): %q", cfg.JWKSURL)
		}
		client := cfg.HTTPClient
		if client == nil {
			client = newJWKSClient()
		}
		logger := cfg.Logger
		if logger == nil {
			logger = slog.Default()
		}
		v.jwks = &jwks{
			ctx: ctx, url: u.String(), client: client, logger: logger, now: now,
			retry: rate.NewLimiter(rate.Every(jwksRetry), 1),
			turn:  make(chan struct{}, 1),
		}
		methods = append(methods, jwt.SigningMethodRS256.Alg(), jwt.SigningMethodES256.Alg(), jwt.SigningMethodEdDSA.Alg())
	}
	v.parser = jwt.NewParser(
		jwt.WithValidMethods(methods),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(Leeway),
		jwt.WithTimeFunc(now),
		jwt.WithStrictDecoding(), // one encoding per signature: no malleable padding bits
	)
	return v, nil
}

// VerifyHeader verifies the token of an Authorization header value.
func (v *Verifier) VerifyHeader(ctx context.Context, header string) (Principal, error) {
	token, err := BearerToken(header)
	if err != nil {
		return Principal{}, err
	}
	return v.Verify(ctx, token)
}

// Verify checks token and returns its principal. Errors wrap ErrInvalidToken
// or, for a valid token without the required scope, ErrInsufficientScope
// (with the principal returned).
func (v *Verifier) Verify(ctx context.Context, token string) (Principal, error) {
	var c claims
	if _, err := v.parser.ParseWithClaims(token, &c, v.keyfunc(ctx)); err != nil {
		return Principal{}, fmt.Errorf("%w: %w", ErrInvalidToken, err)
	}
	if c.TokenUse != nil && *c.TokenUse != "access" {
		return Principal{}, fmt.Errorf("%w: token_use %q is not access", ErrInvalidToken, *c.TokenUse)
	}
	if !v.audienceMatches(&c) {
		return Principal{}, fmt.Errorf("%w: %w", ErrInvalidToken, errAudience)
	}
	if !validSubject(c.Subject) {
		return Principal{}, fmt.Errorf("%w: the subject is empty, blank or holds a character a name may not", ErrInvalidToken)
	}
	p := Principal{Subject: c.Subject, Scopes: append(scopes(c.Scope), c.Scp...), ExpiresAt: c.ExpiresAt.Time}
	if v.scope != "" && !slices.Contains(p.Scopes, v.scope) {
		return p, fmt.Errorf("%w: %q required", ErrInsufficientScope, v.scope)
	}
	return p, nil
}

// scopes splits a scope claim on U+0020 SPACE only (RFC 6749 section 3.3:
// scope = scope-token *( SP scope-token )): a tab, a no-break space or an
// ideographic space is part of a scope, never a separator.
func scopes(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' })
}

// audienceMatches: aud must contain the audience; a token without aud may
// match on client_id, as Cognito access tokens do. An aud that is present
// but an empty array matches nothing (null is refused as it is read).
func (v *Verifier) audienceMatches(c *claims) bool {
	if c.HasAud {
		return slices.Contains(c.Audience, v.audience)
	}
	return c.ClientID != "" && c.ClientID == v.audience
}

// keyfunc picks the key by the token's algorithm, so that a token can never be
// checked with a key of another type (HS256 against a public key, say). From
// a JWKS it uses signing keys only: a JWK whose "use" is present and not
// "sig" is never used, and a JWK that declares "alg" verifies only tokens of
// that alg, with or without kid. A token with "crit" is refused: no header
// extension is understood here (RFC 7515, section 4.1.11).
func (v *Verifier) keyfunc(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		if _, ok := t.Header["crit"]; ok {
			return nil, errors.New(`the token has a "crit" header; no extension is understood`)
		}
		alg := t.Method.Alg()
		if alg == jwt.SigningMethodHS256.Alg() {
			return v.secret, nil // WithValidMethods admits HS256 only with a secret
		}
		// The others only with a JWKS, within one deadline for the lookup.
		ctx, cancel := v.jwks.lookup(ctx)
		defer cancel()
		kf, err := v.jwks.keys(ctx, false)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", errKeysUnavailable, err)
		}
		if _, hasKID := t.Header["kid"]; hasKID {
			// keyfunc reads the JWK by kid, checks its alg against the
			// token's and its use against the whitelist; the key's type is
			// checked here. A kid the set lacks may be a key the issuer
			// has just rotated in: the set is fetched again (if the rate
			// allows) and read once more.
			key, err := kf.KeyfuncCtx(ctx)(t)
			if errors.Is(err, jwkset.ErrKeyNotFound) {
				if kf, err = v.jwks.keys(ctx, true); err == nil {
					key, err = kf.KeyfuncCtx(ctx)(t)
				}
			}
			if err != nil {
				if keys, rerr := kf.Storage().KeyReadAll(ctx); rerr != nil || len(keys) == 0 {
					return nil, keysUnavailable(rerr)
				}
				return nil, err
			}
			if !keyFits(alg, key) {
				return nil, fmt.Errorf("key %v is not a %s key", t.Header["kid"], alg)
			}
			return key, nil
		}
		// Without kid: every signing key of the set that may verify alg.
		jwks, err := kf.Storage().KeyReadAll(ctx)
		if err != nil || len(jwks) == 0 {
			return nil, keysUnavailable(err)
		}
		var set jwt.VerificationKeySet
		for _, jwk := range jwks {
			m := jwk.Marshal()
			if !signingUse(m.USE) || (m.ALG != "" && m.ALG.String() != alg) {
				continue
			}
			key := jwk.Key()
			if pk, ok := key.(interface{ Public() crypto.PublicKey }); ok {
				key = pk.Public()
			}
			if keyFits(alg, key) {
				set.Keys = append(set.Keys, key)
			}
		}
		if len(set.Keys) == 0 {
			return nil, fmt.Errorf("no %s signing key in the JWKS", alg)
		}
		return set, nil
	}
}

// keysUnavailable is the error of a key set that was never fetched or is
// empty: no token can verify, whoever sent it. An outage, not a bad token.
// Only a failed lookup asks for it, so a verification that finds its key
// reads the set once at most.
func keysUnavailable(err error) error {
	if err != nil {
		return fmt.Errorf("%w: read the JWKS: %w", errKeysUnavailable, err)
	}
	return fmt.Errorf("%w: the JWKS holds no key", errKeysUnavailable)
}

// signingUse: a JWK without "use", or with "use": "sig".
func signingUse(u jwkset.USE) bool { return u == "" || u == jwkset.UseSig }

// keyFits reports whether key is the type that alg needs.
func keyFits(alg string, key any) bool {
	switch k := key.(type) {
	case *rsa.PublicKey:
		return alg == "RS256" && k.N.BitLen() >= 2048
	case *ecdsa.PublicKey:
		return alg == "ES256" && k.Curve == elliptic.P256()
	case ed25519.PublicKey:
		return alg == "EdDSA"
	}
	return false
}

// jwks is the cached key set of one URL. Every fetch happens for a
// verification that needs it, within that lookup's deadline: the first use,
// a set older than jwksRefresh, and a kid the set lacks. After the first
// try, fetches are rate-limited (retry), so that a flood of unknown kids or
// an outage of the issuer costs the issuer one request a minute.
type jwks struct {
	ctx    context.Context // the Verifier's life
	url    string
	client *http.Client
	logger *slog.Logger
	now    func() time.Time
	retry  *rate.Limiter // fetches after the first

	turn    chan struct{} // held by the one fetch under way; guards tried and lastErr
	tried   bool          // a fetch was made
	lastErr error         // why the last fetch failed, or nil

	mu      sync.Mutex      // guards kf and fetched
	kf      keyfunc.Keyfunc // the last set fetched; nil before the first
	fetched time.Time       // when kf was fetched, by now
}

// lookup is ctx with the one deadline of a key lookup: ctx's own less
// jwksDeadlineMargin, or jwksLookupDefault from now when ctx has none. It
// also ends when the Verifier's context does.
func (j *jwks) lookup(ctx context.Context) (context.Context, context.CancelFunc) {
	var cancel context.CancelFunc
	if dl, ok := ctx.Deadline(); ok {
		ctx, cancel = context.WithDeadline(ctx, dl.Add(-jwksDeadlineMargin))
	} else {
		ctx, cancel = context.WithTimeout(ctx, jwksLookupDefault)
	}
	if j.ctx.Done() == nil { // a Verifier for the life of the process
		return ctx, cancel
	}
	stop := context.AfterFunc(j.ctx, cancel)
	return ctx, func() { stop(); cancel() }
}

// keys returns the key set to read keys from, fetching it first, within
// ctx, when it is due: never fetched, older than jwksRefresh, or refresh
// (a kid it lacks). A failed fetch is logged and keeps the set there was;
// with none, the error says why. A lookup that has a set never waits for
// another's fetch; one without waits for it no longer than ctx allows.
func (j *jwks) keys(ctx context.Context, refresh bool) (keyfunc.Keyfunc, error) {
	kf, due := j.due(refresh)
	if !due {
		return kf, nil
	}
	select {
	case j.turn <- struct{}{}:
	default:
		if kf != nil {
			return kf, nil
		}
		select {
		case j.turn <- struct{}{}:
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for the JWKS fetch under way: %w", ctx.Err())
		}
	}
	defer func() { <-j.turn }()
	// Again: the fetch this one waited for may have brought the set.
	if kf, due = j.due(refresh); !due {
		return kf, nil
	}
	unavailable := func(err error) (keyfunc.Keyfunc, error) {
		if kf != nil {
			return kf, nil
		}
		return nil, err
	}
	if err := ctx.Err(); err != nil { // no time left: not a try
		return unavailable(fmt.Errorf("no time left to fetch the JWKS: %w", err))
	}
	if j.tried && !j.retry.AllowN(j.now(), 1) {
		return unavailable(fmt.Errorf("the last JWKS fetch failed, the next is due within %v: %w", jwksRetry, j.lastErr))
	}
	j.tried = true
	fetched, err := j.fetch(ctx)
	if err != nil {
		// A key set that cannot be fetched refuses every token: an
		// outage, so an ERROR line (which an alarm counts).
		j.logger.ErrorContext(ctx, "JWKS fetch failed", "url", j.url, "error", err.Error())
		j.lastErr = err
		return unavailable(err)
	}
	j.lastErr = nil
	j.mu.Lock()
	j.kf, j.fetched = fetched, j.now()
	j.mu.Unlock()
	return fetched, nil
}

// due returns the set and whether it is to be fetched.
func (j *jwks) due(refresh bool) (keyfunc.Keyfunc, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.kf, j.kf == nil || refresh || j.now().Sub(j.fetched) >= jwksRefresh
}

// fetch reads the set once, within ctx's deadline.
func (j *jwks) fetch(ctx context.Context) (keyfunc.Keyfunc, error) {
	// jwkset bounds a fetch by HTTPTimeout as well; set past ctx's
	// deadline, so that the lookup's is the one.
	timeout := time.Minute
	if dl, ok := ctx.Deadline(); ok {
		timeout = time.Until(dl) + time.Second
	}
	set, err := jwkset.NewStorageFromHTTP(j.url, jwkset.HTTPClientStorageOptions{
		Client:      j.client,
		Ctx:         ctx,
		HTTPTimeout: timeout,
	})
	if err != nil {
		return nil, err
	}
	return keyfunc.New(keyfunc.Options{Storage: set, UseWhitelist: []jwkset.USE{"", jwkset.UseSig}})
}

// newJWKSClient bounds what fetching a key set may cost: bytes, and where
// redirects may lead. Time is the lookup's deadline, on each request's
// context.
func newJWKSClient() *http.Client {
	return &http.Client{
		Transport: httpcap.Transport(http.DefaultTransport, jwksMaxBytes),
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > jwksMaxRedirects || !fetchable(req.URL) {
				return errors.New("JWKS redirect refused")
			}
			return nil
		},
	}
}

// fetchable: https anywhere, plain http only on a loopback host.
func fetchable(u *url.URL) bool {
	if u.Host == "" {
		return false
	}
	switch u.Scheme {
	case "https":
		return true
	case "http":
		host := u.Hostname()
		ip := net.ParseIP(host)
		return host == "localhost" || (ip != nil && ip.IsLoopback())
	}
	return false
}

// ErrTwoKeySources is ConfigFromEnv's error when AUTH_HS256_SECRET and
// AUTH_JWKS_URL are both set.
var ErrTwoKeySources = errors.New("auth: AUTH_HS256_SECRET and AUTH_JWKS_URL are both set; set one key source " +
	"(AUTH_JWKS_URL for a deployed stack, AUTH_HS256_SECRET only for the local API and the fixtures)")

// ConfigFromEnv reads the AUTH_* variables (docs/design.md, "Configuration") into a
// Config. Defaults are the caller's. An empty variable is an unset one.
//
// A process takes one key source: a deployed authorizer verifies only the
// issuer's JWKS-signed tokens (docs/security.md), and a secret set beside
// the URL would let anyone who holds it (the fixtures' secret is committed)
// mint tokens the deployed stack accepts. So both set is ErrTwoKeySources,
// which stops the authorizer's init and the local API before they serve.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Issuer:        getenv("AUTH_ISSUER"),
		Audience:      getenv("AUTH_AUDIENCE"),
		JWKSURL:       getenv("AUTH_JWKS_URL"),
		RequiredScope: getenv("AUTH_REQUIRED_SCOPE"),
	}
	if s := getenv("AUTH_HS256_SECRET"); s != "" {
		c.HS256Secret = []byte(s)
	}
	if c.HS256Secret != nil && c.JWKSURL != "" {
		return Config{}, ErrTwoKeySources
	}
	return c, nil
}
