package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The workflow guard (workflows.go), rule 8: .ci/run and ci.yml.

// ciRunsTheChecks: ci.yml runs `bash .ci/run`, the one definition of the
// checks (the CI that gates a submission runs the same file), as a plain
// command of a step with no `if:`, in a job with no `if:`; and it can be
// called (workflow_call) by the deploy workflow.
func (c *wfChecker) ciRunsTheChecks() {
	const src = `this repository's rule: one definition of the checks; ` + srcWorkflowSyntax + `, "jobs.<job_id>.steps[*].if"`
	w := c.workflow("ci.yml")
	if w == nil {
		c.add(".github/workflows/ci.yml", ruleCIRun, src, "there is no ci.yml", "restore ci.yml, which runs bash .ci/run")
		return
	}
	if !w.hasTrigger("workflow_call") {
		c.add(w.whereTop("on"), ruleCIRun, src, "ci.yml has no workflow_call trigger: deploy.yml cannot run the checks first", "add `workflow_call:` to its triggers")
	}
	for _, name := range w.order {
		j := w.Jobs[name]
		for _, s := range j.Steps {
			f, err := parseShell(runScript(s.Run), "")
			if err != nil || s.Run == "" {
				continue
			}
			for _, st := range f.Stmts {
				if a := shPlainCall(st); len(a) == 2 && a[0] == "bash" && a[1] == ".ci/run" && j.If == "" && s.If == "" {
					return
				}
			}
		}
	}
	c.add(w.whereTop("jobs"), ruleCIRun, src, "no step runs `bash .ci/run` as a plain command, unconditionally", "add a step `run: bash .ci/run` with no if:")
}

// shPlainCall is a statement's words if it is a plain command: not negated,
// not in the background, no || && or |; nil otherwise.
func shPlainCall(s *syntax.Stmt) []string {
	call, ok := s.Cmd.(*syntax.CallExpr)
	if !ok || s.Negated || s.Background || s.Coprocess || s.Disown {
		return nil
	}
	return shWords(call.Args)
}

// ciRun: .ci/run is the script that CI runs. It starts (after comments) with
// `set -euo pipefail` (or another spelling of -e and -o pipefail), and runs
// `make test` and `make lint` as plain top-level commands: not in an if, a
// loop, a function or a subshell, not negated, backgrounded or in a list,
// with no make flag (-i ignores errors, -n runs nothing), and with no exit or
// exec before them and no function named make. Its other commands get the
// same reading as every run: script.
func (c *wfChecker) ciRun() {
	const src = srcBash + `; this repository's rule: .ci/run is the one definition of the checks`
	path := filepath.Join(c.root, ".ci", "run")
	raw, err := os.ReadFile(path)
	if err != nil {
		c.add(".ci/run", ruleCIRun, src, "cannot read .ci/run: "+err.Error(), "restore .ci/run")
		return
	}
	f := c.shell(".ci/run", string(raw))
	if f == nil {
		return
	}
	var o shellOpts
	if len(f.Stmts) > 0 {
		if a := shPlainCall(f.Stmts[0]); len(a) > 0 && a[0] == "set" {
			o.apply(a[1:])
		}
	}
	if !o.errexit || !o.pipefail {
		c.add(".ci/run:1", ruleCIRun, src, "the first command is not `set -euo pipefail`: a failing check would not stop the script", "begin .ci/run with `set -euo pipefail`")
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if d, ok := n.(*syntax.FuncDecl); ok && d.Name != nil && d.Name.Value == "make" {
			c.add(fmt.Sprintf(".ci/run:%d", d.Pos().Line()), ruleCIRun, src, "a function named make replaces the real make", "remove it")
		}
		return true
	})
	for _, target := range []string{"lint", "test"} {
		found := false
		for i, s := range f.Stmts {
			a := shPlainCall(s)
			if len(a) < 2 || a[0] != "make" || !slices.Contains(a[1:], target) {
				continue
			}
			var flags []string
			for _, w := range a[1:] {
				if strings.HasPrefix(w, "-") || w == "\x00" {
					flags = append(flags, w)
				}
			}
			if len(flags) > 0 {
				c.add(fmt.Sprintf(".ci/run:%d", s.Pos().Line()), ruleCIRun, src, fmt.Sprintf("`make %s` with flags %q (-i ignores errors, -n runs nothing)", target, flags), "run plain `make "+target+"`")
				continue
			}
			if early := shExitsBefore(f.Stmts[:i]); early != nil {
				c.add(fmt.Sprintf(".ci/run:%d", early.Pos().Line()), ruleCIRun, src, "the script exits (or execs) before `make "+target+"` runs", "remove the exit/exec")
				continue
			}
			found = true
		}
		if !found {
			c.add(".ci/run", ruleCIRun, src, "no plain top-level `make "+target+"`: it is missing, or in an if, a list (|| && |), a subshell, negated with !, backgrounded with &, given flags, or after an exit", "add the line `make "+target+"` at the top level, after `set -euo pipefail`")
		}
	}
}

// shExitsBefore is the first top-level statement that ends the script with
// success or replaces it (`exit`, `exit 0`, `exec cmd`).
func shExitsBefore(stmts []*syntax.Stmt) *syntax.Stmt {
	for _, s := range stmts {
		found := false
		syntax.Walk(s, func(n syntax.Node) bool {
			if call, ok := n.(*syntax.CallExpr); ok {
				a := shWords(call.Args)
				found = found || (len(a) > 1 && a[0] == "exec") || (len(a) > 0 && a[0] == "exit" && (len(a) == 1 || a[1] == "0"))
			}
			return !found
		})
		if found {
			return s
		}
	}
	return nil
}
