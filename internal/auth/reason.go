package auth

import (
	"errors"

	"github.com/golang-jwt/jwt/v5"
)

var (
	errKeysUnavailable = errors.New("the signing keys are unavailable")
	errAudience        = errors.New("audience does not match")
)

// Reasons a token is refused, for metrics and logs: few and fixed, never
// the token or its claims.
const (
	ReasonMissing         = "missing"            // no Authorization, or not Bearer
	ReasonMalformed       = "malformed"          // not a JWT, bad encoding, bad or duplicate claims (null, wrong type, a date past what a time holds, a sub not UTF-8 as sent)
	ReasonBadSignature    = "bad_signature"      // the signature, algorithm or key does not verify
	ReasonExpired         = "expired"            // exp is past (beyond the leeway)
	ReasonNotYetValid     = "not_yet_valid"      // nbf or iat in the future
	ReasonIssuer          = "wrong_issuer"       // iss is not the configured issuer
	ReasonAudience        = "wrong_audience"     // aud or client_id does not match (an empty aud matches nothing)
	ReasonScope           = "insufficient_scope" // valid, without the required scope
	ReasonKeysUnavailable = "keys_unavailable"   // the JWKS could not be fetched or is empty: an outage
	ReasonInvalid         = "invalid"            // any other refusal (token_use, a subject blank or with a character a name refuses, crit)
)

// Reason is the class of err, an error of Verify or VerifyHeader, or "" for nil.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNoToken):
		return ReasonMissing
	case errors.Is(err, ErrInsufficientScope):
		return ReasonScope
	case errors.Is(err, errKeysUnavailable):
		return ReasonKeysUnavailable
	case errors.Is(err, jwt.ErrTokenExpired):
		return ReasonExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return ReasonNotYetValid
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return ReasonIssuer
	case errors.Is(err, errAudience):
		return ReasonAudience
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable), errors.Is(err, jwt.ErrSignatureInvalid):
		return ReasonBadSignature
	case errors.Is(err, jwt.ErrTokenMalformed):
		return ReasonMalformed
	}
	return ReasonInvalid
}
