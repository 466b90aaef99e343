// Package eventfilter matches an event source mapping's records against its
// FilterCriteria, as Lambda's event filtering does ("Control which events
// Lambda sends to your function",
// https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html,
// cited below as [filt]). A pattern has the shape of the record: an object
// whose keys name the record's fields and whose leaves are lists of rules;
// the record matches when every key of the pattern matches (AND), a list
// when any of its rules does (OR), and the criteria when any of their
// patterns does ("Your filters are logically ORed together").
//
// Served, of [filt]'s "Filter rule syntax": a value to equal (a string, the
// empty string, a number, true, false, null), {"prefix": "..."},
// {"exists": true|false}, {"anything-but": value or [values]} and
// {"numeric": [op, n, (op, n)]}. Any other operator (suffix,
// equals-ignore-case, wildcard, cidr, $or, anything-but of a prefix) is an
// error of Parse, so that a mapping that uses one is left out in one line,
// never served with a filter that lets through what Lambda would drop.
package eventfilter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Pattern is one filter's pattern, parsed.
type Pattern struct {
	fields map[string]node
}

// node is what a pattern holds for one key: a nested pattern (fields), or
// the rules of a leaf.
type node struct {
	fields map[string]node // a nested object, or nil
	rules  []rule
}

type ruleKind int

const (
	equal ruleKind = iota
	prefix
	exists
	anythingBut
	numeric
)

type rule struct {
	kind   ruleKind
	value  any   // equal: a string, json.Number, bool or nil; prefix: a string; exists: a bool
	values []any // anything-but: strings and json.Numbers
	ranges []bound
}

// bound is one comparison of a numeric rule.
type bound struct {
	op string // =, <, <=, >, >=
	n  float64
}

// Parse reads a filter's Pattern, the JSON text of FilterCriteria.Filters[].Pattern.
// Keys repeated in one object keep their last value, as [filt] says ("Lambda
// uses the last value of a key").
func Parse(pattern string) (*Pattern, error) {
	dec := json.NewDecoder(strings.NewReader(pattern))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("pattern is not JSON: %w", err)
	}
	if dec.More() {
		return nil, errors.New("pattern has more than one JSON value")
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("pattern is not a JSON object")
	}
	fields, err := parseObject(obj, "")
	if err != nil {
		return nil, err
	}
	return &Pattern{fields: fields}, nil
}

func parseObject(obj map[string]any, path string) (map[string]node, error) {
	fields := map[string]node{}
	for k, v := range obj {
		at := strings.TrimPrefix(path+"."+k, ".")
		switch x := v.(type) {
		case map[string]any:
			sub, err := parseObject(x, at)
			if err != nil {
				return nil, err
			}
			fields[k] = node{fields: sub}
		case []any:
			var rules []rule
			for _, r := range x {
				rl, err := parseRule(r)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", at, err)
				}
				rules = append(rules, rl)
			}
			fields[k] = node{rules: rules}
		default:
			return nil, fmt.Errorf("%s: a leaf of a pattern is a list of rules ([%s]), not %s alone", at, jsonText(v), jsonText(v))
		}
	}
	return fields, nil
}

func parseRule(v any) (rule, error) {
	switch x := v.(type) {
	case string, json.Number, bool, nil:
		return rule{kind: equal, value: x}, nil
	case map[string]any:
		if len(x) != 1 {
			return rule{}, fmt.Errorf("rule %s has %d operators; a rule has one", jsonText(x), len(x))
		}
		for op, arg := range x {
			switch op {
			case "prefix":
				s, ok := arg.(string)
				if !ok {
					return rule{}, fmt.Errorf("prefix of %s is not served (only a string)", jsonText(arg))
				}
				return rule{kind: prefix, value: s}, nil
			case "exists":
				b, ok := arg.(bool)
				if !ok {
					return rule{}, fmt.Errorf("exists takes true or false, not %s", jsonText(arg))
				}
				return rule{kind: exists, value: b}, nil
			case "anything-but":
				vals, ok := arg.([]any)
				if !ok {
					vals = []any{arg}
				}
				for _, v := range vals {
					switch v.(type) {
					case string, json.Number:
					default:
						return rule{}, fmt.Errorf("anything-but of %s is not served (only strings and numbers)", jsonText(arg))
					}
				}
				return rule{kind: anythingBut, values: vals}, nil
			case "numeric":
				return parseNumeric(arg)
			}
			return rule{}, fmt.Errorf("operator %q is not served (samlocal matches values, prefix, exists, anything-but and numeric)", op)
		}
	}
	return rule{}, fmt.Errorf("rule %s is not served", jsonText(v))
}

func parseNumeric(arg any) (rule, error) {
	args, _ := arg.([]any)
	if len(args) != 2 && len(args) != 4 {
		return rule{}, fmt.Errorf("numeric takes [op, n] or [op, n, op, n], not %s", jsonText(arg))
	}
	r := rule{kind: numeric}
	for i := 0; i < len(args); i += 2 {
		op, _ := args[i].(string)
		num, ok := args[i+1].(json.Number)
		if !slices.Contains([]string{"=", "<", "<=", ">", ">="}, op) || !ok {
			return rule{}, fmt.Errorf("numeric %s: want an operator (=, <, <=, >, >=) and a number", jsonText(arg))
		}
		n, err := num.Float64()
		if err != nil {
			return rule{}, fmt.Errorf("numeric %s: %w", jsonText(arg), err)
		}
		r.ranges = append(r.ranges, bound{op, n})
	}
	return r, nil
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Criteria are a mapping's filters; a record passes when any of them
// matches it, and every record passes when there are none.
type Criteria []*Pattern

// Match reports whether the record, the JSON of the record as the function
// receives it, passes c.
func (c Criteria) Match(record []byte) (bool, error) {
	if len(c) == 0 {
		return true, nil
	}
	dec := json.NewDecoder(bytes.NewReader(record))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false, err
	}
	return slices.ContainsFunc(c, func(p *Pattern) bool { return p.Match(v) }), nil
}

// Match reports whether the event, JSON decoded with json.Decoder.UseNumber,
// matches p: every key of p must match ("the event must contain all the
// field names included in a filter", [filt]; a field the pattern does not
// name is not looked at).
func (p *Pattern) Match(event any) bool {
	obj, _ := event.(map[string]any)
	return matchFields(p.fields, obj)
}

func matchFields(fields map[string]node, obj map[string]any) bool {
	for k, n := range fields {
		v, present := obj[k]
		if !n.match(v, present) {
			return false
		}
	}
	return true
}

// match matches the event's value at the node's key; present is false
// where the event has no such key. A nested pattern reached through a
// value that is no object meets its leaves absent, as a path that does not
// exist: only {"exists": false} matches them.
func (n node) match(v any, present bool) bool {
	if n.fields != nil {
		obj, _ := v.(map[string]any)
		return matchFields(n.fields, obj)
	}
	return slices.ContainsFunc(n.rules, func(r rule) bool { return r.match(v, present) })
}

// match is one rule against the event's value. Comparison operators work
// on leaves only (EventBridge's "Comparison operators for use in event
// patterns", which Lambda's filtering follows: "Comparison operators only
// work on leaf nodes"): an object is no leaf, and matches no rule. A list
// matches when one of its elements does.
func (r rule) match(v any, present bool) bool {
	if !present {
		return r.kind == exists && r.value == false
	}
	switch x := v.(type) {
	case map[string]any:
		return false
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return r.match(e, true) })
	}
	switch r.kind {
	case equal:
		return sameValue(r.value, v)
	case prefix:
		s, ok := v.(string)
		return ok && strings.HasPrefix(s, r.value.(string))
	case exists:
		return r.value == true
	case anythingBut:
		return !slices.ContainsFunc(r.values, func(e any) bool { return sameValue(e, v) })
	case numeric:
		// A JSON number only: a DynamoDB number is a string in its
		// record ({"N": "50"}), and numeric rules do not apply to it
		// ("numbers in DynamoDB are stored as strings", DynamoDB
		// developer guide, "Tutorial #2: Using filters to process some
		// events with DynamoDB and Lambda").
		num, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := strconv.ParseFloat(num.String(), 64)
		if err != nil {
			return false
		}
		for _, b := range r.ranges {
			if !b.holds(f) {
				return false
			}
		}
		return true
	}
	return false
}

// sameValue compares a rule's value with the event's. Strings match
// exactly, "character by character, without case-folding", and numbers by
// their text: "300, 300.0, and 3.0e2 are not considered equal" ([filt]).
func sameValue(want, got any) bool {
	switch w := want.(type) {
	case string:
		g, ok := got.(string)
		return ok && g == w
	case json.Number:
		g, ok := got.(json.Number)
		return ok && g == w
	case bool:
		g, ok := got.(bool)
		return ok && g == w
	case nil:
		return got == nil
	}
	return false
}

func (b bound) holds(f float64) bool {
	switch b.op {
	case "=":
		return f == b.n
	case "<":
		return f < b.n
	case "<=":
		return f <= b.n
	case ">":
		return f > b.n
	case ">=":
		return f >= b.n
	}
	return false
}
