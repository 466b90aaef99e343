package plant

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/plantstore/plantstore/internal/glyph"
)

// Limits of docs/design.md ("POST /plants"), in Unicode code points.
const (
	MaxNameLen = 256
	MaxTagLen  = 64
)

// ErrInvalid matches every *ValidationError (errors.Is).
var ErrInvalid = errors.New("invalid plant")

// Fault is the kind of a field problem. Its order is the order of precedence
// of the error codes: a missing field outranks a wrong type, which outranks a
// broken rule.
type Fault int

const (
	Missing   Fault = iota + 1 // required and absent or null
	WrongType                  // present with the wrong JSON type or out of range
	BadValue                   // the right type, but a rule is broken
)

// FieldError is one problem with one field.
type FieldError struct {
	Field string
	Fault Fault
	Rule  string // for people: "must be 1 to 256 characters"
}

func (e FieldError) String() string { return e.Field + " " + e.Rule }

// ValidationError lists every problem of a NewPlant.
type ValidationError struct {
	Fields []FieldError
}

func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Fields))
	for i, f := range e.Fields {
		parts[i] = f.String()
	}
	return strings.Join(parts, "; ")
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *ValidationError) Is(target error) bool { return target == ErrInvalid }

// Fault is the highest-ranking fault of e (the smallest Fault value).
func (e *ValidationError) Fault() Fault {
	worst := BadValue
	for _, f := range e.Fields {
		worst = min(worst, f.Fault)
	}
	return worst
}

// Validate checks the value rules of docs/design.md ("POST /plants"). Types and
// presence are the decoder's business; this is what holds for any encoding.
func (p NewPlant) Validate() error {
	var fields []FieldError
	if rule := checkText(p.Name, MaxNameLen); rule != "" {
		fields = append(fields, FieldError{Field: "name", Fault: BadValue, Rule: rule})
	}
	if p.Tag != nil {
		if rule := checkText(*p.Tag, MaxTagLen); rule != "" {
			fields = append(fields, FieldError{Field: "tag", Fault: BadValue, Rule: rule})
		}
	}
	if fields == nil {
		return nil
	}
	return &ValidationError{Fields: fields}
}

// checkText returns the rule that s breaks, or "": valid UTF-8, 1 to maxLen
// code points, no refused code point, at least one visible character
// (glyph.Visible: not white space, not Default_Ignorable, not a blank glyph).
func checkText(s string, maxLen int) string {
	if !utf8.ValidString(s) {
		return "must be valid UTF-8"
	}
	if n := utf8.RuneCountInString(s); n < 1 || n > maxLen {
		return fmt.Sprintf("must be 1 to %d characters", maxLen)
	}
	for _, r := range s {
		if glyph.Refused(r) {
			return fmt.Sprintf("must not contain U+%04X (control characters, U+2028, U+2029, bidirectional controls, U+FEFF and noncharacters are refused)", r)
		}
	}
	if !glyph.AnyVisible(s) {
		return "must contain a visible character (a letter, mark, number, punctuation or symbol), not only white space or invisible ones"
	}
	return ""
}
