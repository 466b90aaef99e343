package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The workflow guard (workflows.go), rule 8: the Makefile.

var (
	// A variable assignment, global or after a target's colon.
	assignRe = regexp.MustCompile(`^(?:(?:override|export|private)\s+)*([A-Za-z_.][A-Za-z0-9_.]*)\s*(\+=|\?=|:::=|::=|:=|!=|=)\s*(.*)$`)
	// A rule line: targets, then one colon or two.
	ruleLineRe = regexp.MustCompile(`^([^\t#=:][^#=:]*?)\s*::?(?:[^=]|$)(.*)$`)
	makeVarRe  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

const errorIgnore = `GNU make manual, "Errors in Recipes" (a - prefix, .IGNORE, -i)`

type makeRule struct {
	line   int
	recipe []recipeLine
}

type recipeLine struct {
	line int
	text string // as make hands it to the shell, before variable expansion
	dash bool   // the line had make's - prefix
}

// makeFile is what the rules read of the Makefile: each target's recipe
// lines, the assignments of .SHELLFLAGS and MAKEFLAGS (global and
// target-specific), the .IGNORE lines, and the global variables' values.
type makeFile struct {
	rules      map[string][]makeRule
	shellFlags []makeAssign // in file order
	makeFlags  []makeAssign
	ignore     []makeAssign      // .IGNORE: lines, value = prerequisites
	vars       map[string]string // global variables by name, the last value set (?= sets only an unset one)
	assigns    []namedAssign     // every assignment, in file order
}

// namedAssign is an assignment with the variable it sets.
type namedAssign struct {
	name string
	makeAssign
}

type makeAssign struct {
	line   int
	target string // "" for a global assignment
	op     string
	value  string
}

// parseMakefile reads a Makefile the way make splits it into rules, recipe
// lines (a leading tab; GNU make manual, "Recipe Syntax") and assignments.
// It does not evaluate conditionals or includes.
func parseMakefile(raw string) *makeFile {
	m := &makeFile{rules: map[string][]makeRule{}, vars: map[string]string{}}
	lines := strings.Split(raw, "\n")
	var current []string // targets whose recipe is being read
	for i := 0; i < len(lines); i++ {
		l, start := lines[i], i+1
		// Backslash-newline joins lines; in a recipe make hands both
		// characters to the shell (and drops the next line's leading tab).
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l += "\n" + strings.TrimPrefix(lines[i], "\t")
		}
		if strings.HasPrefix(l, "\t") {
			if current == nil {
				continue // a recipe line of a rule this reading does not follow
			}
			text := strings.TrimLeft(l[1:], " \t")
			dash := false
			for len(text) > 0 && strings.ContainsRune("@-+", rune(text[0])) {
				dash = dash || text[0] == '-'
				text = strings.TrimLeft(text[1:], " \t")
			}
			for _, t := range current {
				rs := m.rules[t]
				rs[len(rs)-1].recipe = append(rs[len(rs)-1].recipe, recipeLine{start, text, dash})
			}
			continue
		}
		trimmed := strings.TrimSpace(l)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		current = nil
		if a := assignRe.FindStringSubmatch(l); a != nil {
			m.assign(makeAssign{start, "", a[2], stripComment(a[3])}, a[1])
			if _, set := m.vars[a[1]]; !set || a[2] != "?=" {
				m.vars[a[1]] = stripComment(a[3])
			}
			continue
		}
		r := ruleLineRe.FindStringSubmatch(l)
		if r == nil {
			continue
		}
		targets := strings.Fields(r[1])
		rest := strings.TrimSpace(l[strings.Index(l, ":")+1:])
		rest = strings.TrimLeft(rest, ":")
		if a := assignRe.FindStringSubmatch(strings.TrimSpace(rest)); a != nil {
			for _, t := range targets {
				m.assign(makeAssign{start, t, a[2], stripComment(a[3])}, a[1])
			}
			continue
		}
		// The prerequisites end at a comment (#) or at a ; that starts a
		// recipe on the same line (whose # then belongs to the shell).
		prereqs, recipe := rest, ""
		if k := strings.IndexAny(rest, "#;"); k >= 0 {
			prereqs = rest[:k]
			if rest[k] == ';' {
				recipe = strings.TrimSpace(rest[k+1:])
			}
		}
		for _, t := range targets {
			if t == ".IGNORE" {
				m.ignore = append(m.ignore, makeAssign{start, t, "", strings.TrimSpace(prereqs)})
			}
			m.rules[t] = append(m.rules[t], makeRule{line: start})
		}
		current = targets
		if recipe != "" {
			for _, t := range targets {
				rs := m.rules[t]
				rs[len(rs)-1].recipe = append(rs[len(rs)-1].recipe, recipeLine{start, recipe, false})
			}
		}
	}
	return m
}

func (m *makeFile) assign(a makeAssign, name string) {
	m.assigns = append(m.assigns, namedAssign{name, a})
	switch name {
	case ".SHELLFLAGS":
		m.shellFlags = append(m.shellFlags, a)
	case "MAKEFLAGS":
		m.makeFlags = append(m.makeFlags, a)
	}
}

func stripComment(s string) string {
	if i := strings.Index(s, "#"); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}

// shellFlagsFor is the value of .SHELLFLAGS for target ("" for the global
// one): make's default (-c) changed by the global assignments in file order,
// then by the target's own.
func (m *makeFile) shellFlagsFor(target string) string {
	v, set := "-c", false
	apply := func(a makeAssign) {
		switch a.op {
		case "+=":
			v += " " + a.value
		case "?=":
			if !set {
				v = a.value
			}
		default:
			v = a.value
		}
		set = true
	}
	for _, a := range m.shellFlags {
		if a.target == "" {
			apply(a)
		}
	}
	for _, a := range m.shellFlags {
		if target != "" && a.target == target {
			apply(a)
		}
	}
	return v
}

// expandMake replaces make's references in a recipe line with plain words
// so that the shell parser can read it: $$ is a literal $, $(NAME) and
// ${NAME} become the name in lower case ($(MAKE) is make, $(GO) go), a
// function call ($(if ...), $(addprefix ...)) becomes _make_, $@ and the
// other automatic variables _auto_.
func expandMake(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		switch ch := s[i+1]; ch {
		case '$':
			b.WriteByte('$')
			i++
		case '(', '{':
			closer := byte(')')
			if ch == '{' {
				closer = '}'
			}
			depth, j := 0, i+1
			for ; j < len(s); j++ {
				if s[j] == ch {
					depth++
				} else if s[j] == closer {
					depth--
					if depth == 0 {
						break
					}
				}
			}
			inner := s[i+2 : min(j, len(s))]
			if makeVarRe.MatchString(inner) {
				b.WriteString(strings.ToLower(inner))
			} else {
				b.WriteString("_make_")
			}
			i = j
		default:
			b.WriteString("_auto_")
			i++
		}
	}
	return b.String()
}

// makefile: the checks `.ci/run` runs are make targets, so make must stop on
// their failures. GNU make's rule ("Errors in Recipes"): make stops at a
// recipe line that fails, unless the line starts with `-`, the target is in
// .IGNORE, or make runs with -i (--ignore-errors). Each recipe line runs in
// its own `$(SHELL) $(.SHELLFLAGS)`, so .SHELLFLAGS must hold -e (a line with
// several commands) and -o pipefail (a line with a pipe). The recipes of test
// and lint, and of the targets they run through $(MAKE), get the script
// reading of every run: script.
func (c *wfChecker) makefile() {
	raw, err := os.ReadFile(filepath.Join(c.root, "Makefile"))
	if err != nil {
		c.add("Makefile", ruleMakefile, srcMake, "cannot read the Makefile: "+err.Error(), "restore it")
		return
	}
	m := parseMakefile(string(raw))
	checkFlags := func(where, flags string) {
		var o shellOpts
		o.apply(strings.Fields(flags))
		if !o.errexit || !o.pipefail {
			c.add(where, ruleMakefile, `GNU make manual, "Choosing the Shell" (.SHELLFLAGS); `+srcBash,
				fmt.Sprintf(".SHELLFLAGS is %q: without -e and -o pipefail a recipe line's earlier or piped failures pass", flags),
				"set `.SHELLFLAGS := -eu -o pipefail -c`")
		}
	}
	checkFlags(fmt.Sprintf("Makefile:%d .SHELLFLAGS", lastLine(m.shellFlags)), m.shellFlagsFor(""))
	for _, a := range m.shellFlags {
		if a.target != "" {
			checkFlags(fmt.Sprintf("Makefile:%d target %s .SHELLFLAGS", a.line, a.target), m.shellFlagsFor(a.target))
		}
	}
	for _, a := range m.makeFlags {
		for k, f := range strings.Fields(a.value) {
			// MAKEFLAGS may start with its single-letter flags without a dash.
			if ignoresErrors(f) || (k == 0 && !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") && strings.Contains(f, "i")) {
				c.add(fmt.Sprintf("Makefile:%d MAKEFLAGS", a.line), ruleMakefile, errorIgnore, "MAKEFLAGS gets -i (--ignore-errors): every failing recipe line passes", "remove it")
			}
		}
	}
	checked := map[string]bool{}
	var check func(target string)
	check = func(target string) {
		if checked[target] {
			return
		}
		checked[target] = true
		rules, ok := m.rules[target]
		if !ok {
			c.add("Makefile", ruleMakefile, errorIgnore, "no target "+target, "restore the "+target+" target")
			return
		}
		for _, ig := range m.ignore {
			if ig.value == "" || slices.Contains(strings.Fields(ig.value), target) {
				c.add(fmt.Sprintf("Makefile:%d .IGNORE", ig.line), ruleMakefile, errorIgnore, ".IGNORE makes make ignore the failures of "+target+"'s recipe", "remove .IGNORE")
			}
		}
		for _, r := range rules {
			for _, l := range r.recipe {
				where := fmt.Sprintf("Makefile:%d target %s", l.line, target)
				if l.dash {
					c.add(where, ruleMakefile, errorIgnore, "a `-` prefix makes make ignore this line's failure: `"+squeeze(l.text, 80)+"`", "remove the -")
				}
				f := c.shell(where, expandMake(l.text))
				if f == nil {
					continue
				}
				// Targets run through a sub-make are part of the check, and
				// the sub-make must not ignore their errors.
				syntax.Walk(f, func(n syntax.Node) bool {
					if call, ok := n.(*syntax.CallExpr); ok {
						if a := shWords(call.Args); len(a) > 1 && a[0] == "make" {
							for k := 1; k < len(a); k++ {
								switch w := a[k]; {
								case w == "-C" || w == "-f" || w == "-o" || w == "-W":
									k++
								case ignoresErrors(w):
									c.add(where, ruleMakefile, errorIgnore, "a sub-make with "+w+" ignores the failures of what it runs", "remove "+w)
								case strings.HasPrefix(w, "-") || strings.Contains(w, "=") || w == "\x00":
								default:
									check(w)
								}
							}
						}
					}
					return true
				})
			}
		}
	}
	check("test")
	check("lint")
}

// ignoresErrors says whether a make argument is -i (--ignore-errors), alone
// or among other single-letter flags.
func ignoresErrors(w string) bool {
	return w == "--ignore-errors" || (strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.Contains(w, "i"))
}

func lastLine(as []makeAssign) int {
	for i := len(as) - 1; i >= 0; i-- {
		if as[i].target == "" {
			return as[i].line
		}
	}
	return 1
}
