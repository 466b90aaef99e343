package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/aws/aws-lambda-go/events"
	"github.com/golang-jwt/jwt/v5"
)

// HTTP API JWT authorizers, which SAM CLI skips ("must be a Lambda
// Authorizer"), verified here as API Gateway verifies them ("Control access
// to HTTP APIs with JWT authorizers", "Authorizing API requests with a JWT
// authorizer"):
//
//  1. The identity source holds the token, alone or after "Bearer ".
//  2. Its algorithm is RSA's, and its signature is checked with the
//     issuer's public keys: the jwks_uri of the issuer's OpenID
//     configuration ({issuer}/.well-known/openid-configuration), kept for
//     two hours as API Gateway may keep them, and fetched again when a
//     token names a key they lack (a rotation).
//  3. kid names one of those keys; iss is the issuer; aud (or, without
//     aud, client_id) is one of the audience; exp is after now; nbf and
//     iat are not after now.
//  4. The token's scope (or scp) holds one of the route's
//     AuthorizationScopes, when the route has any.
//
// A failure of 1-3 is 401 {"message":"Unauthorized"} with the
// www-authenticate header API Gateway sends ("Troubleshooting issues with
// HTTP API JWT authorizers"); of 4, 403 {"message":"Forbidden"}. The
// claims and scopes reach the function as requestContext.authorizer.jwt
// (payload 2.0) or requestContext.authorizer (1.0). The issuer and its
// keys must be https URLs, as API Gateway requires, or on a loopback
// host (a local identity provider, the tests).

// keysTTL is how long an issuer's keys are kept.
const keysTTL = 2 * time.Hour

// refetchAfter bounds how often a token naming an unknown key makes the
// keys be fetched again.
const refetchAfter = time.Minute

// rsaMethods are the algorithms API Gateway takes ("Currently, only
// RSA-based algorithms are supported").
var rsaMethods = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512"}

// jwtKeys are a JWT authorizer's issuer's keys.
type jwtKeys struct {
	issuer string

	mu      sync.Mutex
	kf      keyfunc.Keyfunc
	fetched time.Time
}

var errNoKid = errors.New("the token has no kid header")

// authorizeJWT verifies the route's JWT.
func (g *Gateway) authorizeJWT(req *request, az *authorizer) (authContext, string, string, authorization) {
	src := "$request.header.Authorization"
	if len(az.IdentitySources) > 0 {
		src = az.IdentitySources[0]
	}
	raw, ok := req.identitySource(src)
	if !ok {
		return authContext{}, "UNAUTHORIZED", "Unauthorized", authorization{how: "no " + src, challenge: `Bearer`}
	}
	if len(raw) > 7 && strings.EqualFold(raw[:7], "bearer ") {
		raw = strings.TrimSpace(raw[7:])
	}
	claims, err := g.verifyJWT(req.r.Context(), az, raw)
	var fetch *fetchError
	switch {
	case errors.As(err, &fetch):
		g.logger.Error("the JWT issuer's keys could not be read", "authorizer", az.Name, "error", err.Error())
		return authContext{}, "AUTHORIZER_FAILURE", "", authorization{how: "the issuer's keys: " + err.Error()}
	case err != nil:
		return authContext{}, "UNAUTHORIZED", "Unauthorized", authorization{
			how:       "jwt refused: " + err.Error(),
			challenge: fmt.Sprintf(`Bearer scope=%q error="invalid_token" error_description=%q`, strings.Join(req.route.Scopes, " "), err.Error()),
		}
	}
	scopes := tokenScopes(claims)
	how := authorization{how: "jwt verified"}
	if sub, ok := claims["sub"].(string); ok {
		how.principal = sub
	}
	if len(req.route.Scopes) > 0 && !slices.ContainsFunc(req.route.Scopes, func(s string) bool { return slices.Contains(scopes, s) }) {
		how.challenge = fmt.Sprintf(`Bearer scope=%q error="insufficient_scope" error_description="expected scopes: %s"`, strings.Join(req.route.Scopes, " "), strings.Join(req.route.Scopes, ", "))
		return authContext{}, "ACCESS_DENIED", "Forbidden", how
	}
	strClaims := map[string]string{}
	for k, v := range claims {
		strClaims[k] = claimString(v)
	}
	if req.route.PayloadVersion == "2.0" {
		return authContext{v2: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{
			JWT: &events.APIGatewayV2HTTPRequestContextAuthorizerJWTDescription{Claims: strClaims, Scopes: scopes},
		}}, "", "", how
	}
	return authContext{v1: map[string]any{"claims": strClaims, "scopes": scopes}}, "", "", how
}

// verifyJWT checks the token's signature and claims.
func (g *Gateway) verifyJWT(ctx context.Context, az *authorizer, raw string) (jwt.MapClaims, error) {
	parser := jwt.NewParser(jwt.WithValidMethods(rsaMethods), jwt.WithIssuer(az.Issuer), jwt.WithTimeFunc(g.now),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt())
	var claims jwt.MapClaims
	var err error
	for attempt := range 2 {
		var kf keyfunc.Keyfunc
		if kf, err = az.jwt.keys(ctx, g, attempt > 0); err != nil {
			return nil, err
		}
		claims = jwt.MapClaims{}
		_, err = parser.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
			if kid, _ := t.Header["kid"].(string); kid == "" {
				return nil, errNoKid
			}
			return kf.Keyfunc(t)
		})
		if err == nil || !errors.Is(err, keyfunc.ErrKeyfunc) {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	if len(az.Audience) > 0 && !audienceMatches(claims, az.Audience) {
		return nil, errors.New("the token does not have a valid audience")
	}
	return claims, nil
}

// audienceMatches says whether aud, or client_id when there is no aud, is
// one of the audience.
func audienceMatches(claims jwt.MapClaims, audience []string) bool {
	if aud, err := claims.GetAudience(); err == nil && len(aud) > 0 {
		return slices.ContainsFunc(aud, func(a string) bool { return slices.Contains(audience, a) })
	}
	id, _ := claims["client_id"].(string)
	return id != "" && slices.Contains(audience, id)
}

// tokenScopes are the token's scope (space-separated) or scp (a list, or
// a space-separated string).
func tokenScopes(claims jwt.MapClaims) []string {
	for _, k := range []string{"scope", "scp"} {
		switch v := claims[k].(type) {
		case string:
			return strings.Fields(v)
		case []any:
			var out []string
			for _, e := range v {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
			return out
		}
	}
	return nil
}

// claimString renders a claim as API Gateway puts it in the event's
// claims, a map of strings: numbers in full, lists as [a b].
func claimString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = claimString(e)
		}
		return "[" + strings.Join(parts, " ") + "]"
	case map[string]any:
		b, _ := json.Marshal(x)
		return string(b)
	}
	return fmt.Sprint(v)
}

// fetchError is a failure to read the issuer's keys: the authorizer
// failed, not the token.
type fetchError struct{ err error }

func (e *fetchError) Error() string { return e.err.Error() }
func (e *fetchError) Unwrap() error { return e.err }

// keys are the issuer's keys, fetched when there are none, when they are
// older than keysTTL, or when again is set and the last fetch is older
// than refetchAfter.
func (k *jwtKeys) keys(ctx context.Context, g *Gateway, again bool) (keyfunc.Keyfunc, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := g.now()
	age := now.Sub(k.fetched)
	if k.kf != nil && age < keysTTL && (!again || age < refetchAfter) {
		return k.kf, nil
	}
	kf, err := k.fetch(ctx, g.client())
	if err != nil {
		if k.kf != nil && !again {
			return k.kf, nil // keep serving the keys there are
		}
		return nil, &fetchError{err}
	}
	k.kf, k.fetched = kf, now
	return kf, nil
}

func (g *Gateway) client() *http.Client {
	if g.Client != nil {
		return g.Client
	}
	return http.DefaultClient
}

// fetch reads the issuer's OpenID configuration and its jwks_uri.
func (k *jwtKeys) fetch(ctx context.Context, client *http.Client) (keyfunc.Keyfunc, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var conf struct {
		JWKSURI string `json:"jwks_uri"`
	}
	discovery := strings.TrimSuffix(k.issuer, "/") + "/.well-known/openid-configuration"
	raw, err := getJSON(ctx, client, discovery)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(raw, &conf); err != nil || conf.JWKSURI == "" {
		return nil, fmt.Errorf("%s has no jwks_uri", discovery)
	}
	raw, err = getJSON(ctx, client, conf.JWKSURI)
	if err != nil {
		return nil, err
	}
	kf, err := keyfunc.NewJWKSetJSON(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", conf.JWKSURI, err)
	}
	return kf, nil
}

// getJSON fetches a document of at most 1 MiB from an https URL, or an
// http one on a loopback host.
func getJSON(ctx context.Context, client *http.Client, rawURL string) ([]byte, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", rawURL)
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !loopback(u.Hostname())) {
		return nil, fmt.Errorf("%s is neither https nor on a loopback host", rawURL)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %d", rawURL, resp.StatusCode)
	}
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rawURL, err)
	}
	return raw, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
