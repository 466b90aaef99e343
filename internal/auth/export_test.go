package auth

// For the tests of package auth_test.

// ValidSubject is the subject rule, which the tests hold against a plant
// name's for every code point.
var ValidSubject = validSubject

// JWKSDeadlineMargin and JWKSLookupDefault say which deadline a key
// lookup gets: its context's, less the margin; without one, the default.
const (
	JWKSDeadlineMargin = jwksDeadlineMargin
	JWKSLookupDefault  = jwksLookupDefault
)
