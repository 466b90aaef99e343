package preflight

// The facts of the build's own files: the Makefile as make reads it (one
// parse: every assignment with its operator, every target's prerequisites
// and recipe lines), and the text, line by line, of the files that say what
// a build fetches or runs (.ci/run, the requirements pip installs, npm's
// settings, the go.mod files).

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// textFiles are the files input.files holds, where they exist, and every
// requirements file at the top or under .github.
var textFiles = []string{"Makefile", ".ci/run", ".npmrc", "package.json", "go.mod", "tools/go.mod", "samlocal/go.mod", "*requirements*.txt", ".github/*requirements*.txt"}

// filesFacts are input.files: {"<path>": {"lines": ["line 1", ...]}}, the
// first string line 1 of the file.
func filesFacts(root string) map[string]any {
	out := map[string]any{}
	for _, pat := range textFiles {
		names, _ := filepath.Glob(filepath.Join(root, pat))
		for _, name := range names {
			raw, err := os.ReadFile(name)
			if err != nil {
				continue
			}
			rel, _ := filepath.Rel(root, name)
			out[filepath.ToSlash(rel)] = map[string]any{"lines": strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")}
		}
	}
	return out
}

// makefileFacts are input.makefile:
//
//	{"file": "Makefile",
//	 "assignments": [{"line": n, "target": "" or a target's, "name": "GO", "op": "?=", "value": "go"}],
//	 "rules": {"<target>": [{"line": n, "prereqs": ["a"], "recipe": [{"line": n, "text": "...", "dash": false}]}]}}
//
// A recipe line is as make hands it to the shell (its @, - and + prefixes
// taken off, dash telling a -); a value is before expansion.
func makefileFacts(m *makeFile) map[string]any {
	out := map[string]any{"file": "Makefile", "assignments": []any{}, "rules": map[string]any{}}
	if m == nil {
		return out
	}
	var assigns []any
	for _, a := range m.assigns {
		assigns = append(assigns, map[string]any{"line": a.line, "target": a.target, "name": a.name, "op": a.op, "value": a.value})
	}
	rules := map[string]any{}
	for t, rs := range m.rules {
		var list []any
		for _, r := range rs {
			recipe := []any{}
			for _, l := range r.recipe {
				recipe = append(recipe, map[string]any{"line": l.line, "text": l.text, "dash": l.dash})
			}
			list = append(list, map[string]any{"line": r.line, "prereqs": strings.Fields(r.prereqs), "recipe": recipe})
		}
		rules[t] = list
	}
	out["assignments"] = nonNil(assigns)
	out["rules"] = rules
	return out
}

var (
	// A variable assignment, global or after a target's colon.
	assignRe = regexp.MustCompile(`(?s)^(?:(?:override|export|private)\s+)*([A-Za-z_.][A-Za-z0-9_.-]*)\s*(\+=|\?=|:::=|::=|:=|!=|=)\s*(.*)$`)
	// A backslash-newline outside a recipe, with the blanks around it.
	continuation = regexp.MustCompile(`[ \t]*\\\n\s*`)
	// A rule line: targets, then one colon or two.
	ruleLineRe = regexp.MustCompile(`^([^\t#=:][^#=:]*?)\s*::?(?:[^=]|$)(.*)$`)
	makeVarRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// makeFile is the Makefile as read: each target's rules, every assignment
// in file order, and the global variables' values.
type makeFile struct {
	rules   map[string][]makeRule
	assigns []makeAssign
}

type makeRule struct {
	line    int
	prereqs string
	recipe  []recipeLine
}

type recipeLine struct {
	line int
	text string // as make hands it to the shell, before variable expansion
	dash bool   // the line had make's - prefix
}

type makeAssign struct {
	line            int
	target          string // "" for a global assignment
	name, op, value string
}

// readMakefile is the Makefile at root, parsed; nil when there is none.
func readMakefile(root string) *makeFile {
	raw, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		return nil
	}
	return parseMakefile(string(raw))
}

// parseMakefile reads a Makefile the way make splits it into rules, recipe
// lines (a leading tab; GNU make manual, "Recipe Syntax") and assignments.
// It does not evaluate conditionals or includes.
func parseMakefile(raw string) *makeFile {
	m := &makeFile{rules: map[string][]makeRule{}}
	lines := strings.Split(raw, "\n")
	var current []string // targets whose recipe is being read
	recipe := func(l recipeLine) {
		for _, t := range current {
			rs := m.rules[t]
			rs[len(rs)-1].recipe = append(rs[len(rs)-1].recipe, l)
		}
	}
	for i := 0; i < len(lines); i++ {
		l, start := lines[i], i+1
		// Backslash-newline joins lines; in a recipe make hands both
		// characters to the shell (and drops the next line's leading tab).
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l += "\n" + strings.TrimPrefix(lines[i], "\t")
		}
		if strings.HasPrefix(l, "\t") {
			text := strings.TrimLeft(l[1:], " \t")
			dash := false
			for len(text) > 0 && strings.ContainsRune("@-+", rune(text[0])) {
				dash = dash || text[0] == '-'
				text = strings.TrimLeft(text[1:], " \t")
			}
			recipe(recipeLine{start, text, dash})
			continue
		}
		if trimmed := strings.TrimSpace(l); trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		current = nil
		if a := assignRe.FindStringSubmatch(l); a != nil {
			// Outside a recipe, backslash-newline and the blanks around
			// it are one space ("Splitting Long Lines").
			v := stripComment(continuation.ReplaceAllString(a[3], " "))
			m.assigns = append(m.assigns, makeAssign{start, "", a[1], a[2], v})
			continue
		}
		r := ruleLineRe.FindStringSubmatch(l)
		if r == nil {
			continue
		}
		targets := strings.Fields(r[1])
		rest := strings.TrimLeft(strings.TrimSpace(l[strings.Index(l, ":")+1:]), ":")
		if a := assignRe.FindStringSubmatch(strings.TrimSpace(rest)); a != nil {
			for _, t := range targets {
				m.assigns = append(m.assigns, makeAssign{start, t, a[1], a[2], stripComment(a[3])})
			}
			continue
		}
		// The prerequisites end at a comment (#) or at a ; that starts a
		// recipe on the same line (whose # then belongs to the shell).
		prereqs, inline := rest, ""
		if k := strings.IndexAny(rest, "#;"); k >= 0 {
			prereqs = rest[:k]
			if rest[k] == ';' {
				inline = strings.TrimSpace(rest[k+1:])
			}
		}
		for _, t := range targets {
			m.rules[t] = append(m.rules[t], makeRule{line: start, prereqs: prereqs})
		}
		current = targets
		if inline != "" {
			recipe(recipeLine{start, inline, false})
		}
	}
	return m
}

func stripComment(s string) string {
	if i := strings.Index(s, "#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
