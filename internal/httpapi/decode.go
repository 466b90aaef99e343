package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/plantstore/plantstore/internal/glyph"
	"github.com/plantstore/plantstore/internal/plant"
)

const (
	// MaxBodyBytes is the largest request body accepted (64 KiB).
	MaxBodyBytes = 64 << 10
	// maxDepth bounds the nesting of arrays and objects in a body.
	maxDepth = 32
)

// decodeNewPlant reads r's body as a NewPlant, checking in order the
// Content-Type (40002), the size (40003), the JSON (40001) and the fields
// (40004-40006, all problems at once).
func decodeNewPlant(w http.ResponseWriter, r *http.Request) (plant.NewPlant, error) {
	if !isJSON(r.Header.Get("Content-Type")) {
		return plant.NewPlant{}, errContentType
	}
	if r.ContentLength > MaxBodyBytes {
		return plant.NewPlant{}, errTooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			return plant.NewPlant{}, errTooLarge
		}
		return plant.NewPlant{}, badJSON("the body could not be read")
	}
	return parseNewPlant(body)
}

// isJSON accepts application/json with an optional utf-8 charset.
func isJSON(contentType string) bool {
	mediaType, params, err := mime.ParseMediaType(contentType)
	if err != nil || mediaType != "application/json" {
		return false
	}
	charset, ok := params["charset"]
	return !ok || strings.EqualFold(charset, "utf-8")
}

// field is a top-level member of the body as the decoder saw it.
type field struct {
	present bool
	token   json.Token // string, json.Number, bool, nil, or json.Delim for an object or array
	raw     []byte     // the value as sent (with the separator before it)
}

// parseNewPlant parses one JSON object with no duplicate keys at any depth and
// nothing after it, then checks its fields. id never passes through float64.
func parseNewPlant(body []byte) (plant.NewPlant, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return plant.NewPlant{}, badJSON("a JSON body is required")
	}
	if !utf8.Valid(body) {
		return plant.NewPlant{}, badJSON("the body is not valid UTF-8")
	}
	id, name, tag, err := scanObject(body)
	if err != nil {
		return plant.NewPlant{}, err
	}
	return newPlant(id, name, tag)
}

// object is an open object or array while scanning; keys is nil for arrays.
type object struct {
	keys     map[string]struct{}
	wantsKey bool
}

func scanObject(body []byte) (id, name, tag field, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return id, name, tag, syntaxError(err)
	}
	if tok != json.Delim('{') {
		return id, name, tag, badJSON("the body must be a JSON object")
	}
	stack := []*object{{keys: map[string]struct{}{}, wantsKey: true}}
	var member *field // the top-level member whose value comes next
	for len(stack) > 0 {
		start := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return id, name, tag, syntaxError(err)
		}
		top := stack[len(stack)-1]
		if top.keys != nil && top.wantsKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				continue
			}
			key := tok.(string) // the decoder allows only strings here
			if _, dup := top.keys[key]; dup {
				return id, name, tag, badJSON(fmt.Sprintf("duplicate key %q", key))
			}
			top.keys[key] = struct{}{}
			top.wantsKey = false
			member = nil
			if len(stack) == 1 {
				switch key {
				case "id":
					member = &id
				case "name":
					member = &name
				case "tag":
					member = &tag
				}
			}
			continue
		}
		if tok == json.Delim(']') {
			stack = stack[:len(stack)-1]
			continue
		}
		top.wantsKey = top.keys != nil
		if member != nil {
			*member = field{present: true, token: tok, raw: body[start:dec.InputOffset()]}
			member = nil
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &object{keys: map[string]struct{}{}, wantsKey: true})
		case json.Delim('['):
			stack = append(stack, &object{})
		}
		if len(stack) > maxDepth {
			return id, name, tag, badJSON(fmt.Sprintf("the body is nested deeper than %d levels", maxDepth))
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		return id, name, tag, badJSON("the body must hold one JSON object and nothing after it")
	}
	return id, name, tag, nil
}

func syntaxError(err error) error {
	if se, ok := errors.AsType[*json.SyntaxError](err); ok {
		return badJSON(fmt.Sprintf("the body is not valid JSON (at byte %d)", se.Offset))
	}
	return badJSON("the body is not valid JSON (it ends too early)")
}

// newPlant turns the scanned members into a NewPlant: presence and types
// here, value rules in plant.NewPlant.Validate.
func newPlant(id, name, tag field) (plant.NewPlant, error) {
	var p plant.NewPlant
	var problems []plant.FieldError
	problem := func(f string, fault plant.Fault, rule string) {
		problems = append(problems, plant.FieldError{Field: f, Fault: fault, Rule: rule})
	}
	switch v := id.token.(type) {
	case nil:
		problem("id", plant.Missing, "is required")
	case json.Number:
		n, err := parseInt64(string(v))
		if err != nil {
			problem("id", plant.WrongType, err.Error())
		}
		p.ID = n
	default:
		problem("id", plant.WrongType, "must be an integer")
	}
	switch v := name.token.(type) {
	case nil:
		problem("name", plant.Missing, "is required")
	case string:
		if glyph.LoneSurrogate(name.raw) {
			problem("name", plant.BadValue, errLoneSurrogate)
		}
		p.Name = v
	default:
		problem("name", plant.WrongType, "must be a string")
	}
	switch v := tag.token.(type) {
	case nil: // absent or null: no tag
	case string:
		if glyph.LoneSurrogate(tag.raw) {
			problem("tag", plant.BadValue, errLoneSurrogate)
		}
		p.Tag = &v
	default:
		problem("tag", plant.WrongType, "must be a string or null")
	}
	if err := p.Validate(); err != nil {
		ve, _ := errors.AsType[*plant.ValidationError](err)
		for _, f := range ve.Fields {
			if !hasProblem(problems, f.Field) {
				problems = append(problems, f)
			}
		}
	}
	if problems != nil {
		return plant.NewPlant{}, &plant.ValidationError{Fields: problems}
	}
	return p, nil
}

func hasProblem(problems []plant.FieldError, field string) bool {
	for _, p := range problems {
		if p.Field == field {
			return true
		}
	}
	return false
}

// parseInt64 accepts a JSON integer literal in the int64 range; 1.0 and 1e3
// are numbers but not integer literals.
func parseInt64(lit string) (int64, error) {
	if strings.ContainsAny(lit, ".eE") {
		return 0, errors.New("must be an integer literal (no fraction or exponent)")
	}
	n, err := strconv.ParseInt(lit, 10, 64)
	if err != nil {
		return 0, errors.New("must be an integer in the int64 range")
	}
	return n, nil
}

// errLoneSurrogate is the rule a name or tag breaks when it holds an escape
// that names no character (glyph.LoneSurrogate): encoding/json would read it
// as U+FFFD, and what is stored would not be what was meant.
const errLoneSurrogate = "must not contain a lone surrogate escape (\\ud800-\\udfff without its pair is not a character)"
