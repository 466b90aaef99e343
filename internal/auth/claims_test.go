package auth_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/plant"
)

// checkReason verifies claims (signed as written) and wants the refusal
// reason (auth.Reason), or "" and the subject wantSub for an accepted token.
func checkReason(t *testing.T, v *auth.Verifier, claims, want, wantSub string) auth.Principal {
	t.Helper()
	p, err := v.Verify(context.Background(), signRaw(t, claims))
	if got := auth.Reason(err); got != want {
		t.Fatalf("Verify(%q): reason %q (%v), want %q", claims, got, err, want)
	}
	if want == "" && p.Subject != wantSub {
		t.Fatalf("Verify(%q): subject %q, want %q", claims, p.Subject, wantSub)
	}
	return p
}

// The scope claim is split on U+0020 SPACE only (RFC 6749 section 3.3:
// scope = scope-token *( SP scope-token )): a tab, a no-break space, NEL or
// an ideographic space does not separate scopes, so "read<TAB>plants/write"
// is one scope that is not plants/write.
func TestScopeSplitsOnSpaceOnly(t *testing.T) {
	t.Parallel()
	scoped := newVerifier(t, auth.Config{HS256Secret: secret, RequiredScope: "plants/write"})
	tests := []struct {
		scope string
		want  string // reason
	}{
		{"read plants/write", ""},
		{" plants/write ", ""},
		{"read  plants/write", ""},
		{"read\tplants/write", auth.ReasonScope},
		{"read\nplants/write", auth.ReasonScope},
		{"read\u00a0plants/write", auth.ReasonScope}, // NO-BREAK SPACE
		{"read\u0085plants/write", auth.ReasonScope}, // NEXT LINE (NEL)
		{"read\u2003plants/write", auth.ReasonScope}, // EM SPACE
		{"read\u3000plants/write", auth.ReasonScope}, // IDEOGRAPHIC SPACE
		{"plants/write\u3000", auth.ReasonScope},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%q", tt.scope), func(t *testing.T) {
			_, err := scoped.Verify(context.Background(), sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", tt.scope)))
			if got := auth.Reason(err); got != tt.want {
				t.Errorf("scope %q: reason %q (%v), want %q", tt.scope, got, err, tt.want)
			}
		})
	}
	t.Run("principal scopes", func(t *testing.T) {
		v := newVerifier(t, auth.Config{HS256Secret: secret})
		p, err := v.Verify(context.Background(), sign(t, jwt.SigningMethodHS256, secret, "", with(good(), "scope", " a\tb  c\u3000d ")))
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{"a\tb", "c\u3000d"}; !slices.Equal(p.Scopes, want) {
			t.Errorf("scopes = %q, want %q", p.Scopes, want)
		}
	})
}

// exp, nbf and iat are NumericDates within what a time.Time holds as Unix
// seconds (int64 seconds, less the seconds from year 1 to 1970, either
// way); a value beyond is refused as malformed, never converted: converted,
// 1e19 and 9223372000000000000 wrap to the far past, so a nbf or iat of
// theirs would pass as long gone.
func TestNumericDatesNeverWrap(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, auth.Config{HS256Secret: secret})
	iat, exp := now.Add(-time.Minute).Unix(), now.Add(time.Hour).Unix()
	claims := func(name, value string) string {
		d := map[string]string{"iat": fmt.Sprint(iat), "nbf": fmt.Sprint(iat), "exp": fmt.Sprint(exp)}
		d[name] = value
		return fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":"tester","iat":%s,"nbf":%s,"exp":%s}`, issuer, audience, d["iat"], d["nbf"], d["exp"])
	}
	tests := []struct {
		name, value, want string
	}{
		{"nbf", "1e19", auth.ReasonMalformed},
		{"nbf", "9223372000000000000", auth.ReasonMalformed},
		{"nbf", "9223372036854775807", auth.ReasonMalformed},
		{"nbf", "-1e19", auth.ReasonMalformed},
		{"nbf", "1e400", auth.ReasonMalformed},
		{"iat", "1e19", auth.ReasonMalformed},
		{"iat", "9223372000000000000", auth.ReasonMalformed},
		{"iat", "9.3e18", auth.ReasonMalformed},
		{"exp", "1e19", auth.ReasonMalformed},
		{"exp", "9223372000000000000", auth.ReasonMalformed},
		{"exp", "9223372036854775808", auth.ReasonMalformed},
		{"exp", "-9223372036854775809", auth.ReasonMalformed},
		// Far, but inside the range: taken for what they say.
		{"nbf", "9223371000000000000", auth.ReasonNotYetValid},
		{"iat", "1e15", auth.ReasonNotYetValid},
		{"exp", "9223371000000000000", ""},
		{"exp", "1e15", ""},
		{"nbf", "-9223371000000000000", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name+"="+tt.value, func(t *testing.T) {
			checkReason(t, v, claims(tt.name, tt.value), tt.want, "tester")
		})
	}
}

// A claim the verifier reads that is present with null, or an aud that is
// an empty array, is present and wrong: refused, never taken as absent (so
// "aud": null never falls back to client_id, and "token_use": null is no
// access token).
func TestPresentClaimsAreNeverAbsent(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, auth.Config{HS256Secret: secret})
	scoped := newVerifier(t, auth.Config{HS256Secret: secret, RequiredScope: "plants/write"})
	iat, exp := now.Add(-time.Minute).Unix(), now.Add(time.Hour).Unix()
	times := fmt.Sprintf(`"iat":%d,"exp":%d`, iat, exp)
	base := fmt.Sprintf(`"iss":%q,"sub":"tester",%s`, issuer, times)
	withAud := fmt.Sprintf(`"iss":%q,"aud":%q,"sub":"tester",%s`, issuer, audience, times)
	tests := []struct {
		name   string
		v      *auth.Verifier
		claims string
		want   string
	}{
		{"no aud, client_id", v, `{` + base + `,"client_id":"plantstore"}`, ""},
		{"aud null, client_id", v, `{` + base + `,"aud":null,"client_id":"plantstore"}`, auth.ReasonMalformed},
		{"aud empty array, client_id", v, `{` + base + `,"aud":[],"client_id":"plantstore"}`, auth.ReasonAudience},
		{"aud [null], client_id", v, `{` + base + `,"aud":[null],"client_id":"plantstore"}`, auth.ReasonMalformed},
		{"aud empty string, client_id", v, `{` + base + `,"aud":"","client_id":"plantstore"}`, auth.ReasonAudience},
		{"client_id null", v, `{` + withAud + `,"client_id":null}`, auth.ReasonMalformed},
		{"token_use access", v, `{` + withAud + `,"token_use":"access"}`, ""},
		{"token_use null", v, `{` + withAud + `,"token_use":null}`, auth.ReasonMalformed},
		{"iss null", v, fmt.Sprintf(`{"iss":null,"aud":%q,"sub":"tester",%s}`, audience, times), auth.ReasonMalformed},
		{"sub null", v, fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":null,%s}`, issuer, audience, times), auth.ReasonMalformed},
		{"jti null", v, `{` + withAud + `,"jti":null}`, auth.ReasonMalformed},
		{"nbf null", v, `{` + withAud + `,"nbf":null}`, auth.ReasonMalformed},
		{"scope null", scoped, `{` + withAud + `,"scope":null,"scp":"plants/write"}`, auth.ReasonMalformed},
		{"scp null", scoped, `{` + withAud + `,"scope":"plants/write","scp":null}`, auth.ReasonMalformed},
		{"scp empty array", scoped, `{` + withAud + `,"scope":"plants/write","scp":[]}`, ""},
		{"a claim not read may be null", v, `{` + withAud + `,"email":null}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReason(t, tt.v, tt.claims, tt.want, "tester")
		})
	}
}

// A subject is one principal: valid UTF-8 as sent (an invalid byte or a
// lone surrogate escape is refused, never read as U+FFFD, so "adm\xffin"
// and "adm\ud800in" never become the same "adm\ufffdin"), and none of the
// characters a plant name refuses (bidirectional controls, U+2028 and
// U+2029, U+FEFF, noncharacters, controls).
func TestSubjectIsOnePrincipal(t *testing.T) {
	t.Parallel()
	v := newVerifier(t, auth.Config{HS256Secret: secret})
	base := fmt.Sprintf(`"iss":%q,"aud":%q,"iat":%d,"exp":%d`, issuer, audience, now.Add(-time.Minute).Unix(), now.Add(time.Hour).Unix())
	tests := []struct {
		name, sub string // sub as written in the JSON, quotes included
		want      string
		wantSub   string
	}{
		{"invalid byte", `"adm` + "\xff" + `in"`, auth.ReasonMalformed, ""},
		{"truncated sequence", `"adm` + "\xe2\x82" + `in"`, auth.ReasonMalformed, ""},
		{"encoded surrogate", `"adm` + "\xed\xa0\x80" + `in"`, auth.ReasonMalformed, ""},
		{"lone high surrogate escape", `"adm\ud800in"`, auth.ReasonMalformed, ""},
		{"lone low surrogate escape", `"\udc00admin"`, auth.ReasonMalformed, ""},
		{"high surrogate before a non-surrogate escape", `"adm\ud800\u0041"`, auth.ReasonMalformed, ""},
		{"high surrogate at the end", `"admin\uD800"`, auth.ReasonMalformed, ""},
		{"two high surrogates", `"\ud83c\ud83c\udf31"`, auth.ReasonMalformed, ""},
		{"U+FFFD as sent", `"adm\ufffdin"`, "", "adm\ufffdin"},
		{"a surrogate pair", `"\ud83c\udf31"`, "", "🌱"},
		{"UTF-8 as sent", `"🌱 tester"`, "", "🌱 tester"},
		{"an escaped backslash before u", `"adm\\ud800in"`, "", `adm\ud800in`},
		{"ZWJ inside", `"a\u200db"`, "", "a\u200db"},
		{"combining mark", `"e\u0301"`, "", "e\u0301"},
		{"RIGHT-TO-LEFT OVERRIDE", `"admin\u202e"`, auth.ReasonInvalid, ""},
		{"LEFT-TO-RIGHT MARK", `"a\u200eb"`, auth.ReasonInvalid, ""},
		{"ARABIC LETTER MARK", `"a\u061cb"`, auth.ReasonInvalid, ""},
		{"LEFT-TO-RIGHT ISOLATE", `"a\u2066b"`, auth.ReasonInvalid, ""},
		{"LINE SEPARATOR", `"a\u2028b"`, auth.ReasonInvalid, ""},
		{"PARAGRAPH SEPARATOR", "\"a\u2029b\"", auth.ReasonInvalid, ""},
		{"BOM", `"\ufeffadmin"`, auth.ReasonInvalid, ""},
		{"noncharacter U+FDD0", `"a\ufdd0"`, auth.ReasonInvalid, ""},
		{"noncharacter U+1FFFF", `"a\ud83f\udfff"`, auth.ReasonInvalid, ""},
		{"NEL", `"a\u0085b"`, auth.ReasonInvalid, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkReason(t, v, `{`+base+`,"sub":`+tt.sub+`}`, tt.want, tt.wantSub)
		})
	}
}

// The characters a subject may not hold are the ones a plant name may not
// hold (docs/design.md, "Bearer tokens": "none of the characters a name
// refuses"): checked for every code point, so the two rules cannot drift.
func TestSubjectRefusesWhatANameRefuses(t *testing.T) {
	t.Parallel()
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue // surrogates: no string holds one
		}
		s := "a" + string(r)
		nameRefused := plant.NewPlant{Name: s}.Validate() != nil
		if subRefused := !auth.ValidSubject(s); subRefused != nameRefused {
			t.Errorf("U+%04X: refused in a subject = %v, in a name = %v", r, subRefused, nameRefused)
		}
	}
}
