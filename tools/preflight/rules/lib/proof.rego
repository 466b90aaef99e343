# What CI proves, measured from the facts of the checks job (input.gate),
# as the reviewed snapshot (tools/preflight/testdata/proof.json) records
# it: make preflight-accept writes `current` there, and rules/proof
# refuses any measure that is less than the reviewed one.
package preflight.lib.proof

import data.preflight.lib.checks

current := {
	"fuzz": {"targets": sort(fuzz_targets), "time": fuzz_time},
	"lint": sort(lint_steps),
	"staticcheck": staticcheck,
	"gosec": gosec,
	"skips": skips,
	"packages": sort(checks.tested),
	"race": sort(checks.raced),
}

reviewed := input.proof.reviewed

# ---- fuzzing (go help testflag: -fuzz, -fuzztime) ----

# fuzz_targets are "<package>:<function>": the items of make fuzz's loop
# around its go test -fuzz, or the package and target of a go test -fuzz
# alone.
fuzz_targets contains t if {
	some c in checks.fuzz_tests
	some t in c.loop
}

fuzz_targets contains sprintf("%s:%s", [pkg, trim(fn, "^$\"")]) if {
	some c in checks.fuzz_tests
	count(c.loop) == 0
	args := checks.args_of(c)
	some i, pkg in args
	checks.positional(args, i)
	fn := flag_value(args, "fuzz")
}

flag_value(args, name) := v if {
	some i, w in args
	checks.flag_name(w) == name
	v := value_at(args, i, w)
}

value_at(args, i, w) := substring(w, indexof(w, "=") + 1, -1) if contains(w, "=")

else := args[i + 1]

# fuzz_time is the -fuzztime of the fuzz runs: a count (20000x) or a
# duration (30s); go test's default is no limit, which CI never uses.
fuzz_time := t if {
	times := {v | some c in checks.fuzz_tests; v := flag_value(checks.args_of(c), "fuzztime")}
	count(times) == 1
	some t in times
} else := concat(" ", sort({v | some c in checks.fuzz_tests; v := flag_value(checks.args_of(c), "fuzztime")}))

# at_least(now, was): a fuzz time as long as the reviewed one, both counts
# or both durations.
at_least(now, was) if {
	regex.match(`^\d+x$`, now)
	regex.match(`^\d+x$`, was)
	to_number(trim_suffix(now, "x")) >= to_number(trim_suffix(was, "x"))
}

at_least(now, was) if {
	not endswith(now, "x")
	not endswith(was, "x")
	time.parse_duration_ns(now) >= time.parse_duration_ns(was)
}

# ---- make lint's steps ----

# plumbing are the commands that check nothing themselves.
plumbing := {
	"echo", "printf", "test", "[", "[[", "command", "exit", "true", "false", "mkdir", "rm", "cat", "grep", "tail",
	"head", "touch", "chmod", "trap", "wait", "sleep", "cd", "export", "local", "set", "git", "mktemp", "tee",
	"sort", "uniq", "awk", "sed", "tr", "cut", "wc", "ls", "find", "xargs", "env", "make",
}

# go's commands that ask or build, and prove nothing.
go_setup := {"list", "env", "version", "build", "install", "clean", "work", "download"}

lint_commands := [c |
	some c in checks.commands("lint")
	not c.in_subst
	count(c.words) > 0
	not checks.base(c.words[0]) in plumbing
	not go_setup_call(c)
]

go_setup_call(c) if {
	checks.base(c.words[0]) == "go"
	checks.go_args(c.words)[0] in go_setup
}

# A step is named by its environment, its tool and its words; staticcheck's
# and gosec's flags are measured apart (their checks). A step that runs
# only when a condition holds (gosec and cfn-lint unless a stamp says they
# passed on the same inputs) is named with the script that decides, as
# reviewed: a new condition, or any change to one, is another step.
lint_steps := {step_name(c) | some c in lint_commands}

step_name(c) := concat(" ", array.concat(
	sort([sprintf("%s=%s", [k, v]) | some k, v in c.assigns]),
	array.concat(array.concat([checks.base(c.words[0])], [w | some w in array.slice(c.words, 1, count(c.words)); kept(c, w)]), guard_of(c)),
))

guard_of(c) := [sprintf("(only as its %s runs it)", [c.guard])] if checks.guarded(c)

else := []

# unguarded is a step's name without the guard guard_of adds.
unguarded(step) := regex.replace(step, ` \(only as its script sha256:[0-9a-f]+ runs it\)$`, "")

kept(c, w) if not checks.base(c.words[0]) in {"staticcheck", "gosec"}

kept(c, w) if not startswith(w, "-")

tool_calls(tool) := [c | some c in lint_commands; checks.base(c.words[0]) == tool]

# ---- staticcheck (staticcheck.dev, "Configuration": -checks and
# staticcheck.conf's checks; a leading - excludes) ----

staticcheck_patterns contains p if {
	some c in tool_calls("staticcheck")
	v := flag_value(array.slice(c.words, 1, count(c.words)), "checks")
	some p in split(v, ",")
}

staticcheck_patterns contains "inherit" if {
	some c in tool_calls("staticcheck")
	not flag_value(array.slice(c.words, 1, count(c.words)), "checks")
}

conf_checks(conf) := [trim(p, " \t\n\"") |
	some m in regex.find_all_string_submatch_n(`(?s)checks\s*=\s*\[([^\]]*)\]`, conf.text, -1)
	some p in split(m[1], ",")
	trim(p, " \t\n\"") != ""
]

staticcheck_patterns contains p if {
	some conf in input.gate.staticcheck_conf
	some p in conf_checks(conf)
}

# A staticcheck.conf whose checks neither inherit nor name all runs only
# those it lists in its subtree: every other check is excluded there.
staticcheck_patterns contains sprintf("-all but %s under %s", [concat(",", checks), conf.file]) if {
	some conf in input.gate.staticcheck_conf
	checks := conf_checks(conf)
	count(checks) > 0
	not "inherit" in checks
	not "all" in checks
}

staticcheck := {
	"enabled": sort({p | some p in staticcheck_patterns; not startswith(p, "-")}),
	"excluded": sort({trim_prefix(p, "-") | some p in staticcheck_patterns; startswith(p, "-")}),
	"tests": staticcheck_tests,
}

staticcheck_tests := false if {
	some c in tool_calls("staticcheck")
	some w in c.words
	w in {"-tests=false", "--tests=false"}
} else := true

# ---- gosec (github.com/securego/gosec, "Usage": -exclude, -include,
# -exclude-dir, -severity, -confidence, -no-fail) ----

gosec_args := [w | some c in tool_calls("gosec"); some w in array.slice(c.words, 1, count(c.words))]

gosec_list(name) := sort({x |
	v := flag_value(gosec_args, name)
	some x in split(v, ",")
	x != ""
})

gosec := {
	"excluded": gosec_list("exclude"),
	"included": gosec_list("include"),
	"exclude_dirs": gosec_list("exclude-dir"),
	"severity": gosec_flag("severity", "low"),
	"confidence": gosec_flag("confidence", "low"),
	"fails": gosec_fails,
}

gosec_flag(name, fallback) := v if v := flag_value(gosec_args, name)

else := fallback

gosec_fails := false if {
	some w in gosec_args
	checks.flag_name(w) == "no-fail"
} else := true

levels := {"low": 0, "medium": 1, "high": 2}

# ---- the switches with which the tests skip instead of failing ----

# CI=true makes the tests that need moto, dynalite, node or a browser fail
# when one is missing; NO_BROWSER=1 skips start-api's browser test
# (tools/cmd/startapi/trace_test.go).
strict := {"CI": "true", "NO_BROWSER": ""}

# skips are each switch's value in make test's go test lines: their own
# assignments, else the checks' environment.
skips := {name: value |
	some name, _ in strict
	values := {switch_value(c, name) | some c in checks.unit_tests}
	value := concat(" ", sort(values))
}

switch_value(c, name) := v if {
	v := c.assigns[name]
} else := v if {
	v := checks.env[name].value
} else := ""

is_strict(name, v) if v == strict[name]
