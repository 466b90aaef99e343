package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider"
	"github.com/golang-jwt/jwt/v5"
)

// maxTokenAnswer bounds what the hook reads of the token endpoint's answer
// (an access token is a few KiB).
const maxTokenAnswer = 64 << 10

// throwawayKID names the key of the token the hook signs without a token of
// the stack: no issuer publishes it.
const throwawayKID = "pre-traffic-throwaway"

// stackToken obtains an access token as a client of the stack does: the app
// client's secret from the user pool (DescribeUserPoolClient), then the
// client credentials grant at the stack's token endpoint (RFC 6749 section
// 4.4) with HTTP basic authentication. Neither the secret nor the token is
// ever part of an error.
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
	form := url.Values{"grant_type": {"client_credentials"}}
	if h.cfg.scope != "" {
		form.Set("scope", h.cfg.scope)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.cfg.tokenEndpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return "", fmt.Errorf("token request: %w", err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(h.cfg.clientID, aws.ToString(out.UserPoolClient.ClientSecret))
	resp, err := h.http.Do(req)
	if err != nil {
		return "", fmt.Errorf("token endpoint: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxTokenAnswer))
	if err != nil {
		return "", fmt.Errorf("token endpoint's answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK {
		// An OAuth error answer ({"error": "invalid_client"}) holds no secret.
		return "", fmt.Errorf("the token endpoint answered %d %.200q", resp.StatusCode, body)
	}
	var tr struct {
		AccessToken string `json:"access_token"`
		TokenType   string `json:"token_type"`
	}
	if json.Unmarshal(body, &tr) != nil || tr.AccessToken == "" || !strings.EqualFold(tr.TokenType, "Bearer") {
		return "", errors.New("the token endpoint's answer holds no bearer access_token")
	}
	return tr.AccessToken, nil
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
