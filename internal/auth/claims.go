package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/glyph"
)

// claims are the parts of a token the Verifier reads.
type claims struct {
	jwt.RegisteredClaims
	HasAud   bool    // aud is present (perhaps an empty array): client_id does not stand in for it
	TokenUse *string // Cognito: "access" or "id"
	ClientID string
	Scope    string           // separated by U+0020 SPACE only (RFC 6749 section 3.3)
	Scp      jwt.ClaimStrings // string or array
}

// claimNames are the names the Verifier reads: RFC 7519's registered claims
// and the scope and Cognito claims.
var claimNames = []string{"iss", "sub", "aud", "exp", "nbf", "iat", "jti", "token_use", "client_id", "scope", "scp"}

// UnmarshalJSON reads each claim by its exact name, as RFC 7519 (section 4)
// defines them: case-sensitive. encoding/json would match struct fields in
// any case, so that a signed {"sub":"tester","SUB":"admin"} spoke for admin.
// A claim whose name differs from one of claimNames only in case, and a name
// given twice, make the token invalid. exp, nbf and iat must be JSON numbers
// (NumericDate, section 2); jwt.NumericDate alone would take "1795000000".
// A claim of claimNames that is null is present and wrong, never absent:
// "aud": null does not let client_id stand in, "token_use": null is not an
// access token. sub must be valid UTF-8 as sent (see subjectAsSent).
func (c *claims) UnmarshalJSON(b []byte) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("the claims are not a JSON object")
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		name := tok.(string) // an object's keys are strings
		if seen[name] {
			return fmt.Errorf("claim %q appears twice", name)
		}
		seen[name] = true
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if err := c.set(name, raw); err != nil {
			return fmt.Errorf("claim %q: %w", name, err)
		}
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the claims object")
	}
	return nil
}

func (c *claims) set(name string, raw json.RawMessage) error {
	if slices.Contains(claimNames, name) && bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return errors.New("is null")
	}
	switch name {
	case "iss":
		return json.Unmarshal(raw, &c.Issuer)
	case "sub":
		if err := subjectAsSent(raw); err != nil {
			return err
		}
		return json.Unmarshal(raw, &c.Subject)
	case "jti":
		return json.Unmarshal(raw, &c.ID)
	case "aud":
		c.HasAud = true
		return json.Unmarshal(raw, &c.Audience)
	case "exp":
		return numericDate(raw, &c.ExpiresAt)
	case "nbf":
		return numericDate(raw, &c.NotBefore)
	case "iat":
		return numericDate(raw, &c.IssuedAt)
	case "token_use":
		return json.Unmarshal(raw, &c.TokenUse)
	case "client_id":
		return json.Unmarshal(raw, &c.ClientID)
	case "scope":
		return json.Unmarshal(raw, &c.Scope)
	case "scp":
		return json.Unmarshal(raw, &c.Scp)
	}
	for _, known := range claimNames {
		if strings.EqualFold(name, known) {
			return fmt.Errorf("differs from %q only in case", known)
		}
	}
	return nil // a claim the Verifier does not read
}

// maxUnix is the latest Unix second a time.Time holds: it counts seconds
// from year 1 in an int64, 62135596800 of them before 1970. Past it, and
// past int64 before that, the conversion wraps to the far past.
const maxUnix = math.MaxInt64 - 62135596800

// numericDate decodes a NumericDate, which must be a JSON number of seconds
// within ±maxUnix (more than 292 billion years either way): a larger value
// (1e19, 9223372000000000000) is refused, never wrapped, so that a nbf or
// iat can never pass for the far past. Within it, jwt.NumericDate reads it
// (fractions included) as golang-jwt does.
func numericDate(raw json.RawMessage, d **jwt.NumericDate) error {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return errors.New("is not a JSON number")
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		return errors.New("is outside the seconds a time holds")
	}
	// ±2^63 are exact in float64: within them the int64 conversion is
	// defined, and the bound itself is checked in integers.
	if sec := math.Trunc(f); sec < -(1<<63) || sec >= 1<<63 || int64(sec) > maxUnix || int64(sec) < -maxUnix {
		return errors.New("is outside the seconds a time holds")
	}
	*d = new(jwt.NumericDate)
	return (*d).UnmarshalJSON(raw)
}

// subjectAsSent refuses a sub whose JSON string, as sent, is not valid UTF-8
// or holds a lone surrogate escape ("\ud800" without its low half, or a low
// half alone). encoding/json would read either as U+FFFD, so that
// "adm\xffin" and "adm\ud800in" named one principal.
func subjectAsSent(raw []byte) error {
	if !utf8.Valid(raw) {
		return errors.New("is not valid UTF-8")
	}
	if glyph.LoneSurrogate(raw) {
		return errors.New("holds a lone surrogate escape")
	}
	return nil
}

// validSubject: a subject speaks for someone when it is valid UTF-8, has a
// visible character (glyph.AnyVisible, as a plant name must) and none of
// the characters a plant name refuses (glyph.Refused): it becomes the
// principal, in logs and in the gateway's context too.
func validSubject(s string) bool {
	return utf8.ValidString(s) && glyph.AnyVisible(s) && strings.IndexFunc(s, glyph.Refused) < 0
}
