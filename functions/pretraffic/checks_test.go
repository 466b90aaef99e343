package main

// The checks' parts, on the tokens and answers the hook makes and reads.

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/golang-jwt/jwt/v5"
)

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	base := map[string]string{"CREATEPLANT_VERSION": "arn:cp:3", "AUTHORIZER_VERSION": "arn:au:3", "METHOD_ARN": "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v1/POST/plants"}
	cognito := map[string]string{"COGNITO_USER_POOL_ID": "us-east-1_Abc", "COGNITO_CLIENT_ID": "client", "COGNITO_TOKEN_ENDPOINT": "https://plantstore-x.auth.us-east-1.amazoncognito.com/oauth2/token"}
	with := func(maps ...map[string]string) func(string) string {
		return func(k string) string {
			v := ""
			for _, m := range maps {
				if w, ok := m[k]; ok {
					v = w
				}
			}
			return v
		}
	}
	tests := []struct {
		name    string
		getenv  func(string) string
		wantErr string // "" for a valid configuration
	}{
		{"nothing", with(), "CREATEPLANT_VERSION"},
		{"another issuer", with(base), ""},
		{"Cognito", with(base, cognito), ""},
		{"Cognito without the endpoint", with(base, cognito, map[string]string{"COGNITO_TOKEN_ENDPOINT": ""}), "go together"},
		{"Cognito without the client", with(base, cognito, map[string]string{"COGNITO_CLIENT_ID": ""}), "go together"},
		{"plain http to another host", with(base, cognito, map[string]string{"COGNITO_TOKEN_ENDPOINT": "http://example.com/oauth2/token"}), "want https"},
		{"plain http on loopback", with(base, cognito, map[string]string{"COGNITO_TOKEN_ENDPOINT": "http://127.0.0.1:8080/oauth2/token"}), ""},
		{"not a URL", with(base, cognito, map[string]string{"COGNITO_TOKEN_ENDPOINT": "oauth2/token"}), "not an absolute URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := loadConfig(tt.getenv)
			if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
				t.Errorf("loadConfig: %v, want %q", err, tt.wantErr)
			}
		})
	}
}

// The authorizer's Allow is for every method and path of the stage; the
// hook wants it to cover the method ARN, by IAM's rule.
func TestAllows(t *testing.T) {
	t.Parallel()
	const arn = "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v1/POST/plants"
	st := func(effect, action, resource string) events.IAMPolicyStatement {
		return events.IAMPolicyStatement{Effect: effect, Action: []string{action}, Resource: []string{resource}}
	}
	tests := []struct {
		name       string
		statements []events.IAMPolicyStatement
		want       bool
	}{
		{"the stage", []events.IAMPolicyStatement{st("Allow", "execute-api:Invoke", "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v1/*/*")}, true},
		{"the ARN itself", []events.IAMPolicyStatement{st("Allow", "execute-api:Invoke", arn)}, true},
		{"any action of the service", []events.IAMPolicyStatement{st("Allow", "execute-api:*", arn)}, true},
		{"another API", []events.IAMPolicyStatement{st("Allow", "execute-api:Invoke", "arn:aws:execute-api:us-east-1:123456789012:other/v1/*/*")}, false},
		{"another stage", []events.IAMPolicyStatement{st("Allow", "execute-api:Invoke", "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v2/*/*")}, false},
		{"another method", []events.IAMPolicyStatement{st("Allow", "execute-api:Invoke", "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v1/GET/*")}, false},
		{"another action", []events.IAMPolicyStatement{st("Allow", "lambda:InvokeFunction", arn)}, false},
		{"a Deny (the scope is missing)", []events.IAMPolicyStatement{st("Deny", "execute-api:Invoke", "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v1/*/*")}, false},
		{"an Allow and a Deny", []events.IAMPolicyStatement{st("Allow", "execute-api:Invoke", "*"), st("Deny", "execute-api:Invoke", arn)}, false},
		{"no statement", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := allows(events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: tt.statements}, arn); got != tt.want {
				t.Errorf("allows = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		pattern, s string
		want       bool
	}{
		{"", "", true}, {"*", "", true}, {"*", "anything", true}, {"a*c", "abbbc", true}, {"a*c", "abcd", false},
		{"a?c", "abc", true}, {"a?c", "ac", false}, {"*/v1/*/*", "api/v1/POST/plants", true}, {"*/v1/*/*", "api/v2/POST/plants", false},
		{"a*b*c", "aXbYbZc", true}, {"abc", "abd", false}, {"ab", "abc", false},
	} {
		if got := match(tt.pattern, tt.s); got != tt.want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

// resign keeps the token's header and claims byte for byte and signs them
// with a new key of the family its alg names: the issuer's key no longer
// verifies it, a key of the same type and size does the signing.
func TestResign(t *testing.T) {
	t.Parallel()
	rsaKey, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	hmacKey := []byte("the-issuer's-own-hs256-secret-of-32+bytes")
	tests := []struct {
		method       jwt.SigningMethod
		sign, verify any
	}{
		{jwt.SigningMethodRS256, rsaKey, &rsaKey.PublicKey},
		{jwt.SigningMethodPS256, rsaKey, &rsaKey.PublicKey},
		{jwt.SigningMethodES256, ecKey, &ecKey.PublicKey},
		{jwt.SigningMethodEdDSA, edKey, edPub},
		{jwt.SigningMethodHS256, hmacKey, hmacKey},
	}
	for _, tt := range tests {
		t.Run(tt.method.Alg(), func(t *testing.T) {
			t.Parallel()
			tok := jwt.NewWithClaims(tt.method, jwt.MapClaims{"iss": "https://issuer.example", "sub": "client", "client_id": "client", "exp": time.Now().Add(time.Hour).Unix()})
			tok.Header["kid"] = "the-issuer's-kid"
			good, err := tok.SignedString(tt.sign)
			if err != nil {
				t.Fatal(err)
			}
			forged, err := resign(good)
			if err != nil {
				t.Fatal(err)
			}
			g, f := strings.Split(good, "."), strings.Split(forged, ".")
			if len(f) != 3 || f[0] != g[0] || f[1] != g[1] || f[2] == g[2] {
				t.Fatalf("forged %q from %q: want the same header and claims and another signature", forged, good)
			}
			keyfunc := func(*jwt.Token) (any, error) { return tt.verify, nil }
			if _, err := jwt.Parse(good, keyfunc); err != nil {
				t.Fatalf("the good token: %v", err)
			}
			if _, err := jwt.Parse(forged, keyfunc); !errors.Is(err, jwt.ErrTokenSignatureInvalid) {
				t.Errorf("the forged token under the issuer's key: %v, want an invalid signature", err)
			}
		})
	}
	t.Run("key families", func(t *testing.T) {
		t.Parallel()
		if k, _ := throwawayKey(jwt.SigningMethodRS256); k.(*rsa.PrivateKey).N.BitLen() != 2048 {
			t.Error("RS256: want an RSA 2048 key")
		}
		if k, _ := throwawayKey(jwt.SigningMethodES256); k.(*ecdsa.PrivateKey).Curve != elliptic.P256() {
			t.Error("ES256: want a P-256 key")
		}
		if k, _ := throwawayKey(jwt.SigningMethodHS256); len(k.([]byte)) != 32 {
			t.Error("HS256: want 32 random bytes")
		}
		if k, _ := throwawayKey(jwt.SigningMethodEdDSA); k.(crypto.Signer) == nil {
			t.Error("EdDSA: want an Ed25519 key")
		}
	})
	for _, bad := range []string{"not a token", "e30.e30", "eyJhbGciOiJub25lIn0.e30.", "eyJhbGciOiJYWDEifQ.e30.c2ln"} {
		if _, err := resign(bad); err == nil {
			t.Errorf("resign(%q) made a token", bad)
		}
	}
}

// Without a token of the stack, the throwaway token carries the claims the
// authorizer wants, RS256 under a kid no issuer publishes.
func TestThrowawayTokenWithoutAStackToken(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	h := &hook{cfg: config{issuer: "https://issuer.example", audience: "plantstore", scope: "plants/write"}, now: func() time.Time { return now }}
	tok, err := h.throwawayToken("")
	if err != nil {
		t.Fatal(err)
	}
	claims := jwt.MapClaims{}
	parsed, _, err := jwt.NewParser().ParseUnverified(tok, claims)
	if err != nil {
		t.Fatal(err)
	}
	if parsed.Method != jwt.SigningMethodRS256 || parsed.Header["kid"] != throwawayKID {
		t.Errorf("header %v, want RS256 and kid %s", parsed.Header, throwawayKID)
	}
	for k, want := range map[string]any{"iss": "https://issuer.example", "aud": "plantstore", "scope": "plants/write", "sub": hookPrincipal, "exp": float64(now.Add(5 * time.Minute).Unix())} {
		if claims[k] != want {
			t.Errorf("claim %s = %v, want %v", k, claims[k], want)
		}
	}
}
