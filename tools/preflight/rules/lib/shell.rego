# Helpers of the script rules: bash's and make's own semantics over
# input.scripts (facts_scripts.go), so that each rule reads as its danger.
package preflight.lib.shell

# within(sc, s) are the statements inside s, s included.
within(sc, s) := [t | some t in sc.stmts; t.id >= s.id; t.id <= s.end]

# command(s) is a call's words from the command it runs: sudo, env, exec
# and command, with their options and assignments, stripped.
command(s) := s.words if {
	s.kind == "call"
	count(s.words) > 0
	not wrapper(s.words[0]) # the common case, worked out first
} else := array.slice(s.words, i, count(s.words)) if {
	s.kind == "call"
	i := min({k | some k, w in s.words; not wrapper(w)})
}

wrapper(w) if w in {"sudo", "env", "exec", "command"}

wrapper(w) if startswith(w, "-")

wrapper(w) if contains(w, "=")

# computed: a word with an expansion (the facts keep its source text).
computed(w) if regex.match("[$`]", w)

# mentions(w, name): a word's source text expands the variable name.
mentions(w, name) if regex.match(sprintf(`\$\{?%s\b`, [name]), w)

# option(args, name, default): whether set's (or bash's, or .SHELLFLAGS')
# flags leave errexit or pipefail on, the last flag winning (bash manual,
# "The Set Builtin": -e, -o errexit, -o pipefail, + turns off).
option(args, name, otherwise) := on if {
	ks := {k | some [k, o, _] in settings(args); o == name}
	count(ks) > 0
	some [k, o, on] in settings(args)
	o == name
	k == max(ks)
} else := otherwise

settings(args) := {[k, "errexit", startswith(w, "-")] |
	some k, w in args
	k < flags_end(args)
	short_flag(w)
	contains(substring(w, 1, -1), "e")
} | {[k, args[k + 1], startswith(w, "-")] |
	some k, w in args
	k < flags_end(args)
	short_flag(w)
	contains(substring(w, 1, -1), "o")
	args[k + 1] in {"errexit", "pipefail"}
}

short_flag(w) if {
	regex.match(`^[-+][^-]`, w)
}

# flags_end is the index of the first word that is no flag (the positional
# parameters), an -o's option name skipped.
flags_end(args) := min({k | some k, w in args; not flag_or_value(args, k)} | {count(args)})

flag_or_value(args, k) if {
	regex.match(`^([-+][^-]|--.)`, args[k])
}

flag_or_value(args, k) if {
	short_flag(args[k - 1])
	contains(args[k - 1], "o")
}

# The targets the checks run: test and lint, and those their recipes run
# through a sub-make (GNU make manual, "Recursive Use of make").
# (graph.reachable answers only the targets that have rules, so the ones
# named without a rule are added.)
make_graph := {t: {w | some [u, w] in submakes; u == t} | some t, _ in input.makefile.rules}

reach := graph.reachable(make_graph, {"test", "lint"})

check_targets := ({"test", "lint"} | reach) | {w | some t in reach; some w in make_graph[t]}

# submakes are [target, target its recipe's make calls run], read in one
# pass over the scripts.
submakes := {[sc.target, w] |
	some sc in input.scripts
	sc.kind == "recipe"
	some s in sc.stmts
	s.kind == "call"
	s.words[0] == "make"
	some k, w in s.words
	k > 0
	not startswith(w, "-")
	not contains(w, "=")
	not computed(w)
	not s.words[k - 1] in {"-C", "-f", "-o", "-W"}
}

# checked(sc): a script CI's checks run: a run: step, .ci/run, or a recipe
# of the checks' targets.
checked(sc) if sc.kind != "recipe"

checked(sc) if {
	sc.kind == "recipe"
	sc.target in check_targets
}

# where(sc) names a script in a message.
where(sc) := sprintf("%s", [sc.where]) if sc.kind != "step"

where(sc) := sprintf("%s, %s", [sc.workflow, sc.where]) if sc.kind == "step"
