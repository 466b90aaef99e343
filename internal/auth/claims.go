package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode"

	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/internal/glyph"
)

// claims are the parts of a token the Verifier reads.
type claims struct {
	jwt.RegisteredClaims
	TokenUse *string // Cognito: "access" or "id"
	ClientID string
	Scope    string           // space-separated (RFC 8693)
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
	switch name {
	case "iss":
		return json.Unmarshal(raw, &c.Issuer)
	case "sub":
		return json.Unmarshal(raw, &c.Subject)
	case "jti":
		return json.Unmarshal(raw, &c.ID)
	case "aud":
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

// numericDate decodes a NumericDate, which must be a JSON number.
func numericDate(raw json.RawMessage, d **jwt.NumericDate) error {
	if len(raw) == 0 || (raw[0] != '-' && (raw[0] < '0' || raw[0] > '9')) {
		return errors.New("is not a JSON number")
	}
	*d = new(jwt.NumericDate)
	return (*d).UnmarshalJSON(raw)
}

// validSubject: a subject speaks for someone when it has a visible character
// and no control character (it becomes the principal, in logs too).
func validSubject(s string) bool {
	return glyph.AnyVisible(s) && strings.IndexFunc(s, unicode.IsControl) < 0
}
