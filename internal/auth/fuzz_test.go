package auth_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/auth"
)

// FuzzVerifyHeader: whatever the Authorization header, nothing but the one
// token signed with the configured secret is accepted, and nothing panics.
func FuzzVerifyHeader(f *testing.F) {
	v, err := auth.NewVerifier(context.Background(), auth.Config{
		Issuer: issuer, Audience: audience, HS256Secret: secret,
		Now: func() time.Time { return now },
	})
	if err != nil {
		f.Fatal(err)
	}
	valid, err := jwt.NewWithClaims(jwt.SigningMethodHS256, good()).SignedString(secret)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("Bearer " + valid)
	f.Add("bearer  " + valid + " ")
	f.Add("Bearer " + valid[:len(valid)-1])
	f.Add("Bearer " + strings.Replace(valid, ".", "..", 1))
	f.Add("Basic dXNlcjpwYXNz")
	f.Add("Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.")
	f.Add("")
	f.Fuzz(func(t *testing.T, header string) {
		p, err := v.VerifyHeader(context.Background(), header)
		if err != nil {
			return
		}
		tok, _ := auth.BearerToken(header)
		if tok != valid {
			t.Fatalf("accepted a token that was not the signed one: %q (principal %+v)", header, p)
		}
	})
}

// FuzzClaims: whatever claims a token signed with the secret holds, an
// accepted one names a principal the subject rule admits (valid UTF-8 as
// sent, no character a name refuses), has no scope with a space in it, an
// aud that names the audience when aud is there, and exp, nbf and iat that,
// read exactly (no float or int64 conversion), allow it now: a date
// never wraps. Nothing panics.
func FuzzClaims(f *testing.F) {
	v, err := auth.NewVerifier(context.Background(), auth.Config{
		Issuer: issuer, Audience: audience, HS256Secret: secret,
		Now: func() time.Time { return now },
	})
	if err != nil {
		f.Fatal(err)
	}
	iat, exp := now.Add(-time.Minute).Unix(), now.Add(time.Hour).Unix()
	base := fmt.Sprintf(`"iss":%q,"aud":%q,"iat":%d,"exp":%d`, issuer, audience, iat, exp)
	for _, c := range []string{
		`{` + base + `,"sub":"tester","scope":"a plants/write"}`,
		`{` + base + `,"sub":"tester","nbf":1e19}`,
		fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"t","iat":9223372000000000000,"exp":%d}`, issuer, audience, exp),
		fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"t","exp":1e19}`, issuer, audience),
		fmt.Sprintf(`{"iss":%q,"aud":null,"client_id":%q,"sub":"t","exp":%d}`, issuer, audience, exp),
		fmt.Sprintf(`{"iss":%q,"aud":[],"client_id":%q,"sub":"t","exp":%d}`, issuer, audience, exp),
		`{` + base + `,"sub":"tester","token_use":null}`,
		`{` + base + `,"sub":"adm\ud800in"}`,
		`{` + base + `,"sub":"adm` + "\xff" + `in"}`,
		`{` + base + `,"sub":"admin\u202e"}`,
		`{` + base + `,"sub":"tester","scope":"read\tplants/write"}`,
	} {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, claims []byte) {
		enc := base64.RawURLEncoding
		unsigned := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString(claims)
		sig, err := jwt.SigningMethodHS256.Sign(unsigned, secret)
		if err != nil {
			t.Fatal(err)
		}
		p, err := v.Verify(context.Background(), unsigned+"."+enc.EncodeToString(sig))
		if err != nil && !errors.Is(err, auth.ErrInvalidToken) {
			t.Fatalf("error %v wraps neither ErrInvalidToken nor nothing", err)
		}
		if err != nil {
			return
		}
		if !auth.ValidSubject(p.Subject) {
			t.Errorf("accepted subject %q", p.Subject)
		}
		for _, s := range p.Scopes {
			if s == "" || strings.Contains(s, " ") {
				t.Errorf("scope %q", s)
			}
		}
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(claims))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("accepted claims that do not decode: %v", err)
		}
		if sub, _ := m["sub"].(string); sub != p.Subject {
			t.Errorf("subject %q, claims %q", p.Subject, claims)
		}
		// A U+FFFD in the subject was sent as one, never made of an
		// invalid byte or a lone surrogate escape.
		if strings.ContainsRune(p.Subject, utf8.RuneError) && !bytes.Contains(claims, []byte("\uFFFD")) && !bytes.Contains(bytes.ToLower(claims), []byte(`\ufffd`)) {
			t.Errorf("subject %q holds a U+FFFD the claims %q do not", p.Subject, claims)
		}
		if aud, ok := m["aud"]; ok && aud != audience && !slices.Contains(anyStrings(aud), audience) {
			t.Errorf("accepted aud %v", aud)
		}
		leeway := new(big.Float).SetInt64(int64(auth.Leeway / time.Second))
		at := new(big.Float).SetInt64(now.Unix())
		for name, later := range map[string]bool{"exp": true, "nbf": false, "iat": false} {
			n, ok := m[name].(json.Number)
			if !ok {
				continue
			}
			d, _, err := big.ParseFloat(string(n), 10, 256, big.ToNearestEven)
			if err != nil {
				t.Fatalf("%s %s: %v", name, n, err)
			}
			if later && d.Cmp(new(big.Float).Sub(at, leeway)) < 0 || !later && d.Cmp(new(big.Float).Add(at, leeway)) > 0 {
				t.Errorf("accepted %s %s at %d", name, n, now.Unix())
			}
		}
	})
}

func anyStrings(v any) []string {
	var out []string
	if a, ok := v.([]any); ok {
		for _, e := range a {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
	}
	return out
}
