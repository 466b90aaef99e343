# METADATA
# title: make stops on the checks' failures
# related_resources:
#   - ref: https://www.gnu.org/software/make/manual/html_node/Errors.html
# custom:
#   id: PS-MK-001
#   danger: a - prefix, .IGNORE, -i, .SHELLFLAGS without -e and pipefail, or a SHELL that is no shell (true, echo) make make ignore a failing recipe line of the checks, or never run it.
#   fix: "remove the -, .IGNORE or -i; keep `SHELL := bash` and `.SHELLFLAGS := -eu -o pipefail -c`"
package preflight.rules.make_errors

import data.preflight.lib.shell

# GNU make ("Errors in Recipes"): make stops at a recipe line that fails,
# unless the line starts with -, the target is in .IGNORE, or make runs
# with -i (--ignore-errors). Each recipe line runs in its own
# `$(SHELL) $(.SHELLFLAGS)` ("Choosing the Shell"), so .SHELLFLAGS must hold
# -e (a line of several commands) and -o pipefail (a line with a pipe).
# The checks are the targets test and lint and those they run through
# $(MAKE).

mk := input.makefile

shellflags := [a | some a in mk.assignments; a.name == ".SHELLFLAGS"]

deny contains {"file": mk.file, "line": 1, "msg": ".SHELLFLAGS is make's default -c: without -e and -o pipefail a recipe line's earlier or piped failures pass"} if {
	count([a | some a in shellflags; a.target == ""]) == 0
}

deny contains {"file": mk.file, "line": a.line, "msg": sprintf("%s.SHELLFLAGS %s %q: without -e and -o pipefail a recipe line's earlier or piped failures pass", [scope(a), a.op, a.value])} if {
	some a in shellflags
	args := split(a.value, " ")
	some o in {"errexit", "pipefail"}
	not shell.option(args, o, a.op == "+=")
}

scope(a) := "" if a.target == ""

scope(a) := sprintf("target %s's ", [a.target]) if a.target != ""

deny contains {"file": mk.file, "line": a.line, "msg": "MAKEFLAGS gets -i (--ignore-errors): every failing recipe line passes"} if {
	some a in mk.assignments
	a.name == "MAKEFLAGS"
	some k, f in split(a.value, " ")
	ignores(f, k)
}

# ignores: a make argument that is -i, alone or among single-letter flags;
# MAKEFLAGS may start with its letters without a dash.
ignores("--ignore-errors", _)

ignores(f, _) if regex.match(`^-[^-]*i`, f)

ignores(f, 0) if regex.match(`^[^-=]*i[^=]*$`, f)

deny contains {"file": mk.file, "line": r.line, "msg": sprintf(".IGNORE makes make ignore the failures of %s's recipe", [t])} if {
	some r in object.get(mk.rules, ".IGNORE", [])
	some t in shell.check_targets
	ignored(r.prereqs, t)
}

ignored(prereqs, _) if count(prereqs) == 0

ignored(prereqs, t) if t in prereqs

deny contains {"file": mk.file, "line": 1, "msg": sprintf("no target %s: the checks run it", [t])} if {
	some t in shell.check_targets
	not mk.rules[t]
}

deny contains {"file": mk.file, "line": l.line, "msg": sprintf("target %s: a `-` prefix makes make ignore this line's failure: `%s`", [t, l.text])} if {
	some t in shell.check_targets
	some r in mk.rules[t]
	some l in r.recipe
	l.dash
}

deny contains {"file": sc.file, "line": s.line, "msg": sprintf("target %s: a sub-make with %s ignores the failures of what it runs", [sc.target, w])} if {
	some sc in input.scripts
	sc.kind == "recipe"
	sc.target in shell.check_targets
	some s in sc.stmts
	s.kind == "call"
	s.words[0] == "make"
	some k, w in s.words
	k > 0
	ignores(w, 1)
	not s.words[k - 1] in {"-C", "-f", "-o", "-W"}
}

# "Choosing the Shell": each recipe line runs as `$(SHELL) $(.SHELLFLAGS)
# line`, and make takes SHELL from the Makefile or its command line, never
# from the environment. A program that is no shell (true, echo, :) runs no
# line and exits 0: every check passes without running.
shells := {"bash", "sh", "dash", "ksh", "zsh"}

is_shell(v) if regex.replace(trim_space(v), `^(/usr)?/bin/env\s+`, "") in {sprintf("%s%s", [d, sh]) | some d in {"", "/bin/", "/usr/bin/", "/usr/local/bin/"}; some sh in shells}

deny contains {"file": mk.file, "line": a.line, "msg": sprintf("%sSHELL %s %q: make runs each recipe line with it, and it is no shell: the line never runs and passes", [scope(a), a.op, a.value])} if {
	some a in mk.assignments
	a.name == "SHELL"
	not is_shell(a.value)
}

deny contains {"file": r.via.file, "line": r.via.line, "msg": sprintf("make %s is called with SHELL=%s: make runs each recipe line with it, and it is no shell: the line never runs and passes", [r.target, r.overrides.SHELL])} if {
	some r in input.gate.runs
	r["as"] == "call"
	r.root == r.target
	not is_shell(r.overrides.SHELL)
}
