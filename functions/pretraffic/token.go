package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/plantstore/plantstore/internal/httpcap"
)

// maxTokenAnswer bounds what the hook reads of the token endpoint's answer
// (an access token is a few KiB; oauth2 alone would read 1 MiB).
const maxTokenAnswer = 64 << 10

// throwawayKID names the key of the token the hook signs without a token of
// the stack: no issuer publishes it.
const throwawayKID = "pre-traffic-throwaway"

// tokenClient is the hook's client of the token endpoint. It follows no
// redirect (the app client's secret goes to the token endpoint and nowhere
// else), waits 10 s at most (the checks' deadline bounds the rest), and
// fails the read of an answer longer than maxTokenAnswer.
func tokenClient() *http.Client {
	return &http.Client{
		Transport:     httpcap.Transport(http.DefaultTransport, maxTokenAnswer),
		Timeout:       10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// stackToken obtains an access token as a client of the stack does: the app
// client's secret from the user pool (DescribeUserPoolClient), then the
// client credentials grant at the stack's token endpoint (RFC 6749 section
// 4.4) with HTTP basic authentication, through golang.org/x/oauth2. Neither
// the secret nor the token is ever part of an error (see grantError).
func (h *hook) stackToken(ctx context.Context) (string, error) {
	out, err := h.clients.DescribeUserPoolClient(ctx, &cognitoidentityprovider.DescribeUserPoolClientInput{
		UserPoolId: aws.String(h.cfg.userPoolID), ClientId: aws.String(h.cfg.clientID),
	})
	if err != nil {
		return "", fmt.Errorf("read the app client of user pool %s: %w", h.cfg.userPoolID, err)
	}
	if out.UserPoolClient == nil || aws.ToString(out.UserPoolClient.ClientSecret) == "" {
		return "", fmt.Errorf("the app client of user pool %s has no secret", h.cfg.userPoolID)
	}
	grant := clientcredentials.Config{
		ClientID:     h.cfg.clientID,
		ClientSecret: aws.ToString(out.UserPoolClient.ClientSecret),
		TokenURL:     h.cfg.tokenEndpoint,
		Scopes:       strings.Fields(h.cfg.scope),
		AuthStyle:    oauth2.AuthStyleInHeader,
	}
	tok, err := grant.Token(context.WithValue(ctx, oauth2.HTTPClient, h.http))
	if err != nil {
		return "", grantError(ctx, err)
	}
	if !strings.EqualFold(tok.TokenType, "Bearer") {
		return "", errNoBearerToken
	}
	return tok.AccessToken, nil
}

var errNoBearerToken = errors.New("the token endpoint's answer holds no bearer access_token (or is over 64 KiB)")

// grantError says why the grant failed in words that cannot hold the secret
// or a token. oauth2's errors may quote the token endpoint's answer (a
// RetrieveError's text is its body, or its error and error_description),
// and net/http's quote the lines of a malformed one, which may echo the
// secret or hold a token. So the hook names only the deadline, the status
// with a registered error code, and the errors of a connection or a
// certificate, which come before or beside any answer and never from it;
// of anything else it says only that no bearer token came.
func grantError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("token endpoint: %w", ctx.Err())
	}
	if re, ok := errors.AsType[*oauth2.RetrieveError](err); ok {
		if registeredErrorCode(re.ErrorCode) {
			return fmt.Errorf("the token endpoint answered %d %s", re.Response.StatusCode, re.ErrorCode)
		}
		return fmt.Errorf("the token endpoint answered %d", re.Response.StatusCode)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("token endpoint: no answer within the client's timeout: %w", context.DeadlineExceeded)
	}
	if oe, ok := errors.AsType[*net.OpError](err); ok {
		return fmt.Errorf("token endpoint: %w", oe)
	}
	if ce, ok := errors.AsType[*tls.CertificateVerificationError](err); ok {
		return fmt.Errorf("token endpoint: %w", ce)
	}
	return errNoBearerToken
}

// registeredErrorCode reports whether code is one of the error codes of RFC
// 6749 section 5.2, which the hook names: words of the standard, never the
// secret or a token.
func registeredErrorCode(code string) bool {
	switch code {
	case "invalid_request", "invalid_client", "invalid_grant", "unauthorized_client", "unsupported_grant_type", "invalid_scope":
		return true
	}
	return false
}

// throwawayToken is a token that differs from a good one in its key alone.
// With the stack's token good, it is that token's header and claims, byte
// for byte, signed with a key made for this call of the family its alg names
// (RS256: a new RSA 2048 key; ES256: P-256; HS256: 32 random bytes), so the
// kid is the issuer's own and only the signature is wrong. Without one
// (another issuer), it is a token with the claims the authorizer wants
// (AUTH_ISSUER, AUTH_AUDIENCE, AUTH_REQUIRED_SCOPE, live for 5 minutes)
// signed RS256 with a new key under a kid no issuer publishes.
func (h *hook) throwawayToken(good string) (string, error) {
	if good != "" {
		return resign(good)
	}
	now := h.now()
	claims := jwt.MapClaims{"sub": hookPrincipal, "iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
	for name, v := range map[string]string{"iss": h.cfg.issuer, "aud": h.cfg.audience, "scope": h.cfg.scope} {
		if v != "" {
			claims[name] = v
		}
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	t := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	t.Header["kid"] = throwawayKID
	return t.SignedString(key)
}

// resign signs token's header and claims again with a throwaway key of the
// family of its alg.
func resign(token string) (string, error) {
	header, rest, ok := strings.Cut(token, ".")
	claims, _, ok2 := strings.Cut(rest, ".")
	if !ok || !ok2 {
		return "", errors.New("the stack's token is not a JWS in compact form")
	}
	raw, err := base64.RawURLEncoding.DecodeString(header)
	if err != nil {
		return "", fmt.Errorf("the stack's token's header: %w", err)
	}
	var hdr struct {
		Alg string `json:"alg"`
	}
	if err := json.Unmarshal(raw, &hdr); err != nil {
		return "", fmt.Errorf("the stack's token's header: %w", err)
	}
	method := jwt.GetSigningMethod(hdr.Alg)
	if method == nil {
		return "", fmt.Errorf("the stack's token has alg %q, which the hook cannot sign", hdr.Alg)
	}
	key, err := throwawayKey(method)
	if err != nil {
		return "", err
	}
	sig, err := method.Sign(header+"."+claims, key)
	if err != nil {
		return "", fmt.Errorf("sign with a throwaway key: %w", err)
	}
	return header + "." + claims + "." + base64.RawURLEncoding.EncodeToString(sig), nil
}

// throwawayKey makes a signing key for method that nobody else holds.
func throwawayKey(method jwt.SigningMethod) (any, error) {
	switch m := method.(type) {
	case *jwt.SigningMethodRSA, *jwt.SigningMethodRSAPSS:
		return rsa.GenerateKey(rand.Reader, 2048)
	case *jwt.SigningMethodECDSA:
		curve := map[int]elliptic.Curve{256: elliptic.P256(), 384: elliptic.P384(), 521: elliptic.P521()}[m.CurveBits]
		if curve == nil {
			return nil, fmt.Errorf("no curve of %d bits for %s", m.CurveBits, m.Alg())
		}
		return ecdsa.GenerateKey(curve, rand.Reader)
	case *jwt.SigningMethodEd25519:
		_, key, err := ed25519.GenerateKey(rand.Reader)
		return key, err
	case *jwt.SigningMethodHMAC:
		key := make([]byte, max(32, m.Hash.Size()))
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		return key, nil
	}
	return nil, fmt.Errorf("the stack's token has alg %q, which the hook cannot sign", method.Alg())
}
