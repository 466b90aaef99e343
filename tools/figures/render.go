package figures

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// The markers around a generated figure.
const (
	openPrefix = "<!-- fig:"
	openSuffix = "-->"
	closer     = "<!-- /fig -->"
)

// marker is one generated figure of a document: its key (what follows
// "fig:") and where its text stands.
type marker struct {
	line       int
	key        string
	start, end int // the text between the opening and closing comments
}

// LineError is a problem with one line of a document.
type LineError struct {
	Line int
	Err  error
}

func (e LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// InFile names the file: "path:line: problem".
func (e LineError) InFile(path string) error { return fmt.Errorf("%s:%d: %w", path, e.Line, e.Err) }

func joinLineErrors(path string, errs []LineError) error {
	var all []error
	for _, e := range errs {
		if path == "" {
			all = append(all, e)
		} else {
			all = append(all, e.InFile(path))
		}
	}
	return errors.Join(all...)
}

// markers finds the generated figures of doc, outside code.
func markers(doc string) ([]marker, []LineError) {
	code := codeSpans(doc)
	var ms []marker
	var errs []LineError
	for i := 0; ; {
		j := strings.Index(doc[i:], openPrefix)
		if j < 0 {
			break
		}
		j += i
		if inAny(code, j) {
			i = j + len(openPrefix)
			continue
		}
		line := lineOf(doc, j)
		k := strings.Index(doc[j:], openSuffix)
		if k < 0 || strings.Contains(doc[j:j+k], "\n") {
			errs = append(errs, LineError{line, fmt.Errorf("%s without %s on its line", openPrefix, openSuffix)})
			i = j + len(openPrefix)
			continue
		}
		key := strings.TrimSpace(doc[j+len(openPrefix) : j+k])
		lineStart := strings.TrimSpace(doc[strings.LastIndexByte(doc[:j], '\n')+1:j]) == ""
		switch {
		case key == "table" && !lineStart:
			errs = append(errs, LineError{line, errors.New("<!-- fig: table --> must begin its line")})
		case key != "table" && lineStart:
			// CommonMark: a line that begins with <!-- opens an HTML block,
			// which takes the line out of its paragraph and leaves its
			// Markdown unrendered.
			errs = append(errs, LineError{line, fmt.Errorf("%q begins its line, which makes the line an HTML block: put a word before it", key)})
		}
		start := j + k + len(openSuffix)
		c := strings.Index(doc[start:], closer)
		if c < 0 {
			errs = append(errs, LineError{line, fmt.Errorf("%q has no %s after it", key, closer)})
			break
		}
		end := start + c
		if n := strings.Index(doc[start:end], openPrefix); n >= 0 {
			errs = append(errs, LineError{line, fmt.Errorf("%q has no %s before the next marker (line %d)", key, closer, lineOf(doc, start+n))})
			i = start + n
			continue
		}
		ms = append(ms, marker{line, key, start, end})
		i = end + len(closer)
	}
	return ms, errs
}

// Change is a generated figure whose text is not what the report renders.
type Change struct {
	Line          int
	Key           string // what follows "fig:" in its marker
	Written, Want string
}

func (c Change) String() string {
	return fmt.Sprintf("%d: <!-- fig: %s --> says %q, the report %q", c.Line, c.Key, c.Written, c.Want)
}

// Changes is every generated figure of doc that differs from r's
// rendering. The error names each marker that cannot be rendered: a row
// the report does not have, an unknown or empty field, a marker not closed.
func Changes(r Report, doc string) ([]Change, error) {
	_, changes, errs := render(r, doc)
	return changes, joinLineErrors("", errs)
}

// Render returns doc with the text of every generated figure rewritten from
// r. It fails, naming each one, if a marker cannot be rendered.
func Render(r Report, doc string) (string, error) {
	out, _, errs := render(r, doc)
	return out, joinLineErrors("", errs)
}

func render(r Report, doc string) (string, []Change, []LineError) {
	ms, errs := markers(doc)
	var b strings.Builder
	var changes []Change
	last := 0
	for _, m := range ms {
		want, err := r.Field(m.key)
		if err != nil {
			errs = append(errs, LineError{m.line, err})
			continue
		}
		if written := doc[m.start:m.end]; written != want {
			changes = append(changes, Change{m.line, m.key, written, want})
		}
		b.WriteString(doc[last:m.start])
		b.WriteString(want)
		last = m.end
	}
	b.WriteString(doc[last:])
	if len(errs) > 0 {
		return doc, changes, errs
	}
	return b.String(), changes, nil
}

// Field is the text a marker's key renders to: "table" is the whole table;
// "<figure> .<field>" a field of the row of that figure (value, floor,
// ratio, goal, or met); ".date", ".machine" and ".command" the report's.
func (r Report) Field(key string) (string, error) {
	if key == "table" {
		return "\n" + r.Table(), nil
	}
	figure, field := "", ""
	if strings.HasPrefix(key, ".") {
		field = key[1:]
	} else if i := strings.LastIndex(key, " ."); i >= 0 {
		figure, field = strings.TrimSpace(key[:i]), key[i+2:]
	} else {
		return "", fmt.Errorf("%q: want \"<figure> .<field>\", \".date\" or \"table\"", key)
	}
	var fields map[string]string
	if figure == "" {
		fields = map[string]string{"date": r.Date, "machine": r.Machine, "command": r.Command}
	} else {
		row, ok := r.row(figure)
		if !ok {
			return "", fmt.Errorf("%q: no row %q in the report (a figure as bench.json spells it)", key, figure)
		}
		if field == "met" {
			met, err := row.Met()
			if err != nil {
				return "", fmt.Errorf("%q: %w", key, err)
			}
			return map[bool]string{true: "met", false: "not met"}[met], nil
		}
		fields = map[string]string{"value": row.Value, "floor": row.Floor, "ratio": row.Ratio, "goal": row.Goal}
	}
	text, ok := fields[field]
	switch {
	case !ok && figure == "":
		return "", fmt.Errorf("%q: the report has .date, .machine and .command", key)
	case !ok:
		return "", fmt.Errorf("%q: unknown field %q (value, floor, ratio, goal, met)", key, field)
	case text == "":
		return "", fmt.Errorf("%q is empty in the report", key)
	}
	return text, nil
}

// quantity is a number and the unit after it: "7.19 MiB", "1.23x",
// "14109/s", "0".
var quantity = regexp.MustCompile(`^([0-9][0-9,]*(?:\.[0-9]+)?)\s*([^\s:;,()]*)`)

func parseQuantity(s string) (float64, string, bool) {
	m := quantity.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return 0, "", false
	}
	v, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	return v, m[2], err == nil
}

// Met says whether the row meets its goal: a bound ("<= 8.5 MiB",
// ">= 0.50x", "< 1.00x: ...") or a number to equal ("0"). A goal in x
// bounds the ratio, any other the value, in the same unit.
func (r Row) Met() (bool, error) {
	goal := strings.TrimSpace(r.Goal)
	op := "="
	for _, o := range []string{"<=", ">=", "≤", "≥", "<", ">", "="} {
		if strings.HasPrefix(goal, o) {
			op, goal = o, strings.TrimSpace(goal[len(o):])
			break
		}
	}
	want, unit, ok := parseQuantity(goal)
	if !ok {
		return false, fmt.Errorf("goal %q is not a bound", r.Goal)
	}
	field, name := r.Value, "value"
	if unit == "x" {
		field, name = r.Ratio, "ratio"
	}
	got, gotUnit, ok := parseQuantity(field)
	if !ok || gotUnit != unit {
		return false, fmt.Errorf("the %s %q is not in the goal's unit (%q): not measured in this run?", name, field, r.Goal)
	}
	switch op {
	case "<=", "≤":
		return got <= want, nil
	case ">=", "≥":
		return got >= want, nil
	case "<":
		return got < want, nil
	case ">":
		return got > want, nil
	}
	return got == want, nil
}

// RenderFiles renders r into each file, writing none unless all render.
// It returns the number of generated figures in each.
func RenderFiles(r Report, paths []string) ([]int, error) {
	outs := make([]string, len(paths))
	counts := make([]int, len(paths))
	var errs []error
	for i, path := range paths {
		doc, err := os.ReadFile(path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		ms, _ := markers(string(doc))
		counts[i] = len(ms)
		var lineErrs []LineError
		outs[i], _, lineErrs = render(r, string(doc))
		if err := joinLineErrors(path, lineErrs); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	for i, path := range paths {
		if doc, err := os.ReadFile(path); err == nil && string(doc) == outs[i] {
			continue // unchanged: not written, so as not to race an editor
		}
		if err := os.WriteFile(path, []byte(outs[i]), 0o644); err != nil {
			return nil, err
		}
	}
	return counts, nil
}
