package auth_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/srctree"
)

func getenv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// ConfigFromEnv takes one key source: a secret beside a JWKS URL stops the
// process (the authorizer's init, the local API) with one line, and an empty
// variable counts as unset, as the deployed authorizer declares
// AUTH_HS256_SECRET empty beside its JWKS URL.
func TestConfigFromEnvTakesOneKeySource(t *testing.T) {
	t.Parallel()
	const secret = "a-secret-of-at-least-thirty-two-bytes"
	const jwks = "https://issuer.example/.well-known/jwks.json"
	base := map[string]string{"AUTH_ISSUER": "https://issuer.example", "AUTH_AUDIENCE": "plantstore"}
	with := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}

	_, err := auth.ConfigFromEnv(getenv(with("AUTH_HS256_SECRET", secret, "AUTH_JWKS_URL", jwks)))
	if !errors.Is(err, auth.ErrTwoKeySources) {
		t.Fatalf("secret and JWKS URL: %v, want ErrTwoKeySources", err)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") || !strings.Contains(msg, "AUTH_HS256_SECRET") || !strings.Contains(msg, "AUTH_JWKS_URL") {
		t.Errorf("the error is not one line naming both variables: %q", msg)
	}

	for name, tc := range map[string]struct {
		vars       map[string]string
		secret     bool
		jwksURL    string
		verifierOK bool
	}{
		"secret alone":            {with("AUTH_HS256_SECRET", secret), true, "", true},
		"JWKS URL alone":          {with("AUTH_JWKS_URL", jwks), false, jwks, true},
		"JWKS URL, empty secret":  {with("AUTH_JWKS_URL", jwks, "AUTH_HS256_SECRET", ""), false, jwks, true},
		"secret, empty JWKS URL":  {with("AUTH_HS256_SECRET", secret, "AUTH_JWKS_URL", ""), true, "", true},
		"neither (NewVerifier's)": {with(), false, "", false},
	} {
		cfg, err := auth.ConfigFromEnv(getenv(tc.vars))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if (cfg.HS256Secret != nil) != tc.secret || cfg.JWKSURL != tc.jwksURL {
			t.Errorf("%s: secret set %v, JWKS URL %q; want %v, %q", name, cfg.HS256Secret != nil, cfg.JWKSURL, tc.secret, tc.jwksURL)
		}
		if _, err := auth.NewVerifier(t.Context(), cfg); (err == nil) != tc.verifierOK {
			t.Errorf("%s: NewVerifier: %v", name, err)
		}
	}
}

// The --env-vars files that sam local, make invoke and make start-api read
// (events/env*.json) give no function two key sources. A function's entry
// that sets a secret names AUTH_JWKS_URL as "" itself: by SAM CLI's rule a
// variable the file leaves out keeps the template's value, which for the
// authorizer is the Cognito pool's JWKS URL.
func TestEnvFilesGiveOneKeySource(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(srctree.Path("events", "env*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no events/env*.json found (%v)", err)
	}
	secrets := 0
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for fn, vars := range doc {
			env := map[string]string{}
			for k, v := range vars {
				if s, ok := v.(string); ok {
					env[k] = s
				}
			}
			if _, err := auth.ConfigFromEnv(getenv(env)); err != nil {
				t.Errorf("%s %s: %v", f, fn, err)
			}
			if env["AUTH_HS256_SECRET"] == "" {
				continue
			}
			secrets++
			if url, ok := env["AUTH_JWKS_URL"]; !ok || url != "" {
				t.Errorf("%s %s sets AUTH_HS256_SECRET and not AUTH_JWKS_URL to \"\": under sam local the template's JWKS URL would stand beside the secret", f, fn)
			}
		}
	}
	if secrets == 0 {
		t.Error("no env file sets AUTH_HS256_SECRET: has the fixtures' key source moved?")
	}
}
