package preflight

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The shell rules of the workflow guard (workflows.go): the scripts of
// run steps, .ci/run and the Makefile's recipes, read with mvdan.cc/sh.

// ---- 8. continue-on-error, shells, scripts ----

// runScripts reads each `run:` script for checks it neutralises
// (scriptProblems).
func (c *wfChecker) runScripts(w *workflow) {
	for _, name := range w.order {
		j := w.Jobs[name]
		for i, s := range j.Steps {
			if s.Run != "" {
				c.shell(w.whereStep(j, i), runScript(s.Run))
			}
		}
	}
}

// shell parses one script and adds its problems; it returns the parsed file,
// nil when it does not parse.
func (c *wfChecker) shell(where, src string) *syntax.File {
	f, err := parseShell(src, "")
	if err != nil {
		c.add(where, ruleNeutralised, srcBash, "the script does not parse as bash ("+err.Error()+"), so its checks cannot be read", "fix the script's syntax")
		return nil
	}
	for _, p := range scriptProblems(f, src) {
		c.add(fmt.Sprintf("%s (script line %d)", where, p.line), ruleNeutralised, srcBash, p.what, p.fix)
	}
	return f
}

func parseShell(src, name string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), name)
}

// runScript is a run: script as the shell gets it: GitHub expands each
// expression into the text first (template-injection reports them), so
// here each becomes a plain word.
func runScript(run string) string {
	return exprRe.ReplaceAllString(run, "_expr_")
}

type shellProblem struct {
	line      int
	what, fix string
}

type shellCheck struct {
	src      string
	problems []shellProblem
}

// scriptProblems are the places where a script run with `set -e` and
// pipefail lets a failed command pass. The bash manual ("The Set Builtin",
// -e): the shell does not exit when the failing command is "part of any
// command executed in a && or || list except the command following the final
// && or ||", "any command in a pipeline but the last", or "if the command's
// return status is being inverted with !"; and "if a compound command other
// than a subshell returns a non-zero status because a command failed while -e
// was being ignored, the shell does not exit". So, outside an if/while
// condition (where testing a status is the point):
//
//   - `a || b` needs a b that ends the script with a failure (`exit N`, N not
//     0, `exit $?`, `false`, `{ ...; exit N; }`); else b hides a's failure
//     (`make test || echo failed`, `|| true`, `|| :`). A left side that only
//     asks a question (test, [, [[, command -v, type, hash, which) is an
//     if-not, not a hidden failure: `command -v x || install x`.
//   - `a && b` and `! a` are fine only as the script's last command (their
//     status is the script's), or with a probe on the left.
//   - `set +e`, `set +o errexit`, `set +o pipefail` (and shopt -u -o) turn the
//     guard off; a trap on EXIT or ERR that exits can replace the status.
//
// `cmd; true` is fine: under -e, cmd's failure ends the script first.
func scriptProblems(f *syntax.File, src string) []shellProblem {
	c := &shellCheck{src: src}
	c.list(f.Stmts, true)
	syntax.Walk(f, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok {
			c.builtin(call)
		}
		return true
	})
	return c.problems
}

func (c *shellCheck) add(n syntax.Node, what, fix string) {
	c.problems = append(c.problems, shellProblem{int(n.Pos().Line()), what + ": `" + c.text(n) + "`", fix})
}

func (c *shellCheck) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(c.src) || start > end {
		return "?"
	}
	return squeeze(c.src[start:end], 80)
}

// list checks a list of statements; last says whether the status of the
// list's last statement decides the outcome (the script's own last
// statement, a subshell's, a function's).
func (c *shellCheck) list(stmts []*syntax.Stmt, last bool) {
	for i, s := range stmts {
		c.stmt(s, last && i == len(stmts)-1)
	}
}

func (c *shellCheck) stmt(s *syntax.Stmt, decides bool) {
	if s.Negated && !decides && !shProbe(s) {
		c.add(s, "`!` turns off set -e for the command, so its failure is ignored here", "drop the `!` (or test the status in an if)")
	}
	switch x := s.Cmd.(type) {
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.OrStmt:
			switch {
			case shFails(x.Y):
				c.stmt(x.X, true)
			case shProbe(x.X):
				c.stmt(x.Y, decides)
			default:
				c.add(s, "`a || b` where b does not fail: a's failure is hidden", "drop `|| ...`, or end it with `|| { echo ...; exit 1; }`")
				c.stmt(x.X, true)
				c.stmt(x.Y, decides)
			}
		case syntax.AndStmt:
			if !decides && !shProbe(x.X) {
				c.add(s, "`a && b` not at the end of the script: set -e ignores a's failure", "split it into two commands (a newline or ;)")
			}
			c.stmt(x.X, true)
			c.stmt(x.Y, decides)
		default: // pipes: with pipefail, any failing part fails the pipeline
			c.stmt(x.X, decides)
			c.stmt(x.Y, decides)
		}
	case *syntax.Block:
		c.list(x.Stmts, decides)
	case *syntax.Subshell:
		c.list(x.Stmts, true) // a subshell's status does trigger -e
	case *syntax.IfClause:
		for e := x; e != nil; e = e.Else {
			c.list(e.Then, decides)
		}
	case *syntax.WhileClause:
		c.list(x.Do, false)
	case *syntax.ForClause:
		c.list(x.Do, false)
	case *syntax.CaseClause:
		for _, it := range x.Items {
			c.list(it.Stmts, decides)
		}
	case *syntax.FuncDecl:
		c.stmt(x.Body, true)
	case *syntax.TimeClause:
		if x.Stmt != nil {
			c.stmt(x.Stmt, decides)
		}
	case nil:
	default:
		// Simple commands: read the scripts of their command substitutions.
		syntax.Walk(x, func(n syntax.Node) bool {
			switch n := n.(type) {
			case *syntax.CmdSubst:
				c.list(n.Stmts, true)
				return false
			case *syntax.ProcSubst:
				c.list(n.Stmts, true)
				return false
			}
			return true
		})
	}
}

// builtin refuses the builtins that switch the guard off.
func (c *shellCheck) builtin(call *syntax.CallExpr) {
	args := shWords(call.Args)
	if len(args) == 0 {
		return
	}
	switch args[0] {
	case "set":
		for _, a := range args[1:] {
			if a == "\x00" {
				c.add(call, "`set` with a computed argument: whether it turns -e off cannot be read", "spell the options out")
				return
			}
			if a == "--" || a == "-" || (a[0] != '-' && a[0] != '+') {
				break
			}
		}
		o := shellOpts{errexit: true, pipefail: true}
		o.apply(args[1:])
		if !o.errexit {
			c.add(call, "`set +e` turns off exit-on-error: later failures are ignored", "remove it; test a status with if where a failure is expected")
		}
		if !o.pipefail {
			c.add(call, "`set +o pipefail`: a failure before a | is ignored", "remove it")
		}
	case "shopt":
		if slices.Contains(args, "-u") && slices.Contains(args, "-o") && (slices.Contains(args, "errexit") || slices.Contains(args, "pipefail")) {
			c.add(call, "`shopt -u -o` turns off errexit or pipefail", "remove it")
		}
	case "trap":
		if len(args) >= 3 && exitWordRe.MatchString(args[1]) {
			for _, sig := range args[2:] {
				if s := strings.ToUpper(strings.TrimPrefix(strings.ToUpper(sig), "SIG")); s == "EXIT" || s == "0" || s == "ERR" {
					c.add(call, "a trap on "+sig+" that exits replaces the script's failing status", "do not exit from an EXIT or ERR trap")
					break
				}
			}
		}
	}
}

var exitWordRe = regexp.MustCompile(`\bexit\b`)

// shellOpts follows -e and -o pipefail through set's (and bash's) flags.
type shellOpts struct{ errexit, pipefail bool }

func (o *shellOpts) apply(words []string) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "--" || w == "-" || len(w) < 2 || (w[0] != '-' && w[0] != '+') {
			return // positional parameters follow
		}
		if strings.HasPrefix(w, "--") {
			continue // bash's long options (--noprofile)
		}
		on := w[0] == '-'
		for _, ch := range w[1:] {
			switch ch {
			case 'e':
				o.errexit = on
			case 'o':
				if i+1 < len(words) {
					i++
					switch words[i] {
					case "errexit":
						o.errexit = on
					case "pipefail":
						o.pipefail = on
					}
				}
			}
		}
	}
}

// words are the literal values of shell words (quotes removed); a word with
// an expansion in it is "\x00".
func shWords(ws []*syntax.Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shWord(w)
	}
	return out
}

func shWord(w *syntax.Word) string {
	if lit, ok := shLiteral(w); ok {
		return lit
	}
	return "\x00"
}

// shLiteral is the literal text of a word, its quotes removed and its
// expansions left out, and whether it has no expansion.
func shLiteral(w *syntax.Word) (string, bool) {
	var b strings.Builder
	plain := true
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(l.Value)
				} else {
					plain = false
				}
			}
		default:
			plain = false
		}
	}
	return b.String(), plain
}

// shProbe says whether a statement only asks a question, so that its failure
// is an answer, not a failed check.
func shProbe(s *syntax.Stmt) bool {
	switch x := s.Cmd.(type) {
	case *syntax.TestClause, *syntax.ArithmCmd:
		return true
	case *syntax.BinaryCmd:
		return (x.Op == syntax.AndStmt || x.Op == syntax.OrStmt) && shProbe(x.X) && shProbe(x.Y)
	case *syntax.CallExpr:
		args := shWords(x.Args)
		if len(args) == 0 {
			return false
		}
		switch args[0] {
		case "test", "[", "type", "hash", "which":
			return true
		case "command":
			return len(args) > 1 && (args[1] == "-v" || args[1] == "-V")
		}
	}
	return false
}

// shFails says whether a statement ends the script with a failure: `exit N`
// (N not 0), `exit $?` after a failure, `false`, or a block or subshell that
// ends with one.
func shFails(s *syntax.Stmt) bool {
	if s.Negated {
		return false
	}
	switch x := s.Cmd.(type) {
	case *syntax.CallExpr:
		args := shWords(x.Args)
		if len(args) == 1 && args[0] == "false" {
			return true
		}
		if len(args) == 2 && args[0] == "exit" {
			if n, err := strconv.Atoi(args[1]); err == nil {
				return n%256 != 0
			}
			if len(x.Args[1].Parts) == 1 {
				if p, ok := x.Args[1].Parts[0].(*syntax.ParamExp); ok && p.Param != nil && p.Param.Value == "?" {
					return true
				}
			}
		}
	case *syntax.Block:
		return len(x.Stmts) > 0 && shFails(x.Stmts[len(x.Stmts)-1])
	case *syntax.Subshell:
		return len(x.Stmts) > 0 && shFails(x.Stmts[len(x.Stmts)-1])
	}
	return false
}
