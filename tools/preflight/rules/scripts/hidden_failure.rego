# METADATA
# title: Scripts keep set -e and pipefail
# related_resources:
#   - ref: https://www.gnu.org/software/bash/manual/html_node/The-Set-Builtin.html
# custom:
#   id: PS-SH-001
#   danger: a script (a run step, .ci/run, a Makefile recipe of the checks) that hides a failure (|| true, && not at the end, !, set +e, a trap that exits) lets a failing check pass.
#   fix: drop what hides the failure; test a status with if where a failure is expected
package preflight.rules.hidden_failure

import data.preflight.lib.shell

# The bash manual ("The Set Builtin", -e): the shell does not exit when the
# failing command is "part of any command executed in a && or || list
# except the command following the final && or ||", "any command in a
# pipeline but the last" (pipefail sees those), or "if the command's return
# status is being inverted with !". So, outside an if's or a while's
# condition, where testing a status is the point:
#   - `a || b` needs a b that fails (exit N, false), or an a that only asks
#     a question (test, [, command -v): `command -v x || install x`;
#   - `a && b` and `! a` only where their status is the script's own;
#   - set +e, set +o pipefail, shopt -u -o and a trap on EXIT or ERR that
#     exits turn the guard off anywhere.

scripts contains sc if {
	some sc in input.scripts
	shell.checked(sc)
}

deny contains {"file": sc.file, "line": sc.line, "msg": sprintf("%s: the script does not parse as bash (%s), so its checks cannot be read", [shell.where(sc), sc.error])} if {
	some sc in scripts
	sc.error != ""
}

finding(sc, s, what) := {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s: `%s`", [shell.where(sc), what, s.text])}

deny contains finding(sc, s, "`a || b` where b does not fail: a's failure is hidden") if {
	some sc in scripts
	some s in sc.stmts
	s.kind == "or"
	not s.cond
	not fails(sc, sc.stmts[s.y])
	not probe(sc, sc.stmts[s.x])
}

deny contains finding(sc, s, "`a && b` not at the end of the script: set -e ignores a's failure") if {
	some sc in scripts
	some s in sc.stmts
	s.kind == "and"
	not s.tail
	not s.cond
	s.operand != "x"
	not probe(sc, sc.stmts[s.x])
}

deny contains finding(sc, s, "`!` turns off set -e for the command, so its failure is ignored here") if {
	some sc in scripts
	some s in sc.stmts
	s.negated
	not s.tail
	not s.cond
	s.operand != "x"
	not probe(sc, s)
}

calls contains [sc, s, s.words] if {
	some sc in scripts
	some s in sc.stmts
	s.kind == "call"
}

deny contains finding(sc, s, "`set` with a computed argument: whether it turns -e off cannot be read") if {
	some [sc, s, words] in calls
	words[0] == "set"
	args := array.slice(words, 1, count(words))
	some k, w in args
	k <= shell.flags_end(args)
	shell.computed(w)
}

deny contains finding(sc, s, "`set +e` turns off exit-on-error: later failures are ignored") if {
	some [sc, s, words] in calls
	words[0] == "set"
	not shell.option(array.slice(words, 1, count(words)), "errexit", true)
}

deny contains finding(sc, s, "`set +o pipefail`: a failure before a | is ignored") if {
	some [sc, s, words] in calls
	words[0] == "set"
	not shell.option(array.slice(words, 1, count(words)), "pipefail", true)
}

deny contains finding(sc, s, "`shopt -u -o` turns off errexit or pipefail") if {
	some [sc, s, words] in calls
	words[0] == "shopt"
	"-u" in words
	"-o" in words
	some o in {"errexit", "pipefail"}
	o in words
}

deny contains finding(sc, s, sprintf("a trap on %s that exits replaces the script's failing status", [sig])) if {
	some [sc, s, words] in calls
	words[0] == "trap"
	regex.match(`\bexit\b`, words[1])
	some sig in array.slice(words, 2, count(words))
	trim_prefix(upper(sig), "SIG") in {"EXIT", "0", "ERR"}
}

# probe: a command that only asks a question, whose failure is an answer;
# or a list of two such.
probe(_, s) if simple_probe(s)

probe(sc, s) if {
	s.kind in {"and", "or"}
	simple_probe(sc.stmts[s.x])
	simple_probe(sc.stmts[s.y])
}

simple_probe(s) if s.kind in {"test", "arith"}

simple_probe(s) if {
	s.kind == "call"
	s.words[0] in {"test", "[", "type", "hash", "which"}
}

simple_probe(s) if {
	s.kind == "call"
	s.words[0] == "command"
	s.words[1] in {"-v", "-V"}
}

# fails: a command that ends the script with a failure (exit N, exit $?,
# false), or a block or subshell that ends with one.
fails(_, s) if simple_fails(s)

fails(sc, s) if {
	not s.negated
	s.kind in {"block", "subshell"}
	simple_fails(sc.stmts[s.last])
}

simple_fails(s) if {
	not s.negated
	s.kind == "call"
	s.words == ["false"]
}

simple_fails(s) if {
	not s.negated
	s.kind == "call"
	s.words[0] == "exit"
	count(s.words) == 2
	exit_fails(s.words[1])
}

exit_fails(w) if w in {"$?", "\"$?\""}

exit_fails(n) if {
	regex.match(`^[0-9]+$`, n)
	to_number(n) % 256 != 0
}
