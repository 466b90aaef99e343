# Helpers of the gate and proof rules: what CI's checks job runs, read
# from input.gate (facts_gate.go): the go test calls of make test and the
# packages they select (go help packages, go help testflag), the
# environment they run in.
package preflight.lib.checks

# env[name] is the checks' environment in CI: the last setting of each
# variable (GitHub's CI=true, ci.yml's env:, .ci/run's exports).
env[name] := e if {
	some i, e in input.gate.env
	name := e.name
	not set_later(name, i)
}

set_later(name, i) if {
	some j, e in input.gate.env
	e.name == name
	j > i
}

# commands(root) are the commands of the runs that .ci/run's `make root`
# starts, the runs' own recipes and the make calls below them (not the
# prerequisites, which install and build).
commands(root) := [c |
	some r in input.gate.runs
	r.root == root
	r["as"] == "call"
	some c in r.commands
]

base(w) := regex.replace(w, `^.*/`, "")

# go_args are a go command's words after go and its -C dir.
go_args(words) := array.slice(words, 3, count(words)) if {
	count(words) > 2
	words[1] == "-C"
} else := array.slice(words, 1, count(words))

is_go(c, sub) if {
	count(c.words) > 1
	base(c.words[0]) == "go"
	go_args(c.words)[0] == sub
}

# go test's flags (go help testflag, go help build) that neither select nor
# skip tests, true where the flag takes a value.
plain_flags := {
	"count": true, "race": false, "v": false, "timeout": true, "p": true, "parallel": true, "json": false,
	"failfast": false, "shuffle": true, "cover": false, "covermode": true, "coverprofile": true, "coverpkg": true,
	"mod": true, "trimpath": false, "buildvcs": true, "cpu": true, "benchmem": false, "bench": true, "benchtime": true,
	"x": false, "work": false, "a": false, "vet": true, "outputdir": true, "cpuprofile": true, "memprofile": true,
	"blockprofile": true, "mutexprofile": true, "trace": true, "ldflags": true, "gcflags": true, "fullpath": false,
	"fuzztime": true, "fuzzminimizetime": true,
	# -o keeps the test binary at a path and still runs it; the go command
	# relinks it unless its build ID is what it would link now.
	"o": true,
}

plain_names := object.keys(plain_flags)

# The other flags with a value, so that their value is not read as a
# package; each selects, skips or replaces what runs.
value_flags := {"run", "skip", "list", "exec", "tags", "fuzz", "toolexec", "overlay", "modfile", "pkgdir", "f", "C"}

flag_name(w) := trim_prefix(split(trim_left(w, "-"), "=")[0], "test.")

takes_value(w) if {
	not contains(w, "=")
	plain_flags[flag_name(w)] == true
}

takes_value(w) if {
	not contains(w, "=")
	value_flags[flag_name(w)]
}

# positional(args, i): args[i] is no flag nor a flag's value.
positional(args, i) if {
	not startswith(args[i], "-")
	not flag_value(args, i)
}

flag_value(args, i) if {
	i > 0
	startswith(args[i - 1], "-")
	takes_value(args[i - 1])
}

# filters are the flags of go test's arguments that select or skip tests
# (anything but plain_flags; -fuzz marks a fuzz run instead).
filters(args) := {w |
	some w in args
	startswith(w, "-")
	not flag_name(w) in plain_names
	flag_name(w) != "fuzz"
}

filter_with_value(args, w) := concat(" ", [w, args[i + 1]]) if {
	some i, x in args
	x == w
	takes_value(w)
	i + 1 < count(args)
} else := w

# guarded(c): c runs only when a condition of its script holds (an if's
# branch, after && or ||, a case arm) or its make call's does: what CI
# proves cannot rest on it.
guarded(c) if c.guard != ""

# The go test calls of make test, unit test runs and fuzz runs, that run
# whenever make test does.
go_tests := [c | some c in commands("test"); not c.in_subst; is_go(c, "test"); not guarded(c)]

fuzzes(c) if {
	some w in go_args(c.words)
	flag_name(w) == "fuzz"
}

unit_tests := [c | some c in go_tests; not fuzzes(c)]

fuzz_tests := [c | some c in go_tests; fuzzes(c)]

# ---- the packages a go test selects (go help packages) ----

packages := {p.dir: p | some p in input.gate.packages}

modules := {p.module | some p in input.gate.packages}

under(dir, b) if b == "."

under(dir, b) if dir == b

under(dir, b) if startswith(dir, concat("", [b, "/"]))

module_of(dir) := m if {
	cands := {x | some x in modules; x != "."; under(dir, x)}
	count(cands) > 0
	longest := max({count(x) | some x in cands})
	some m in cands
	count(m) == longest
} else := "."

is_local(pat) if pat == "."

is_local(pat) if startswith(pat, "./")

recursive(pat) if endswith(pat, "...")

pattern_base(pat) := b if {
	t := trim_prefix(trim_suffix(trim_suffix(pat, "..."), "/"), "./")
	b := dot(t)
}

dot(t) := "." if t == ""

else := t

# named(pat) are the packages a pattern names, each kind of pattern
# worked out once, not per package.
named(pat) := {p | some p in input.gate.packages; under(p.dir, b); p.module == m} if {
	is_local(pat)
	recursive(pat)
	b := pattern_base(pat)
	m := module_of(b)
} else := {p | some p in input.gate.packages; p.dir == b} if {
	is_local(pat)
	b := pattern_base(pat)
} else := {p | some p in input.gate.packages; under(p.import_path, prefix)} if {
	recursive(pat)
	prefix := trim_suffix(trim_suffix(pat, "..."), "/")
} else := {p | some p in input.gate.packages; p.import_path == pat}

# in_view: with GOWORK=off go sees the main module alone.
in_view(c, p) if object.get(c.assigns, "GOWORK", "") != "off"

in_view(c, p) if p.module == "."

# selects(c) are the package directories a go test call names: its
# patterns, and the go list pipes of its command substitutions.
selects(c) := {d |
	some i, a in args_of(c)
	positional(args_of(c), i)
	some d in word_selects(c, a, offset(c) + i)
}

args_of(c) := array.slice(go_args(c.words), 1, count(go_args(c.words)))

offset(c) := count(c.words) - count(args_of(c))

word_selects(c, a, i) := pipe_selects(c.substs[sprintf("%d", [i])][0]) if c.substs[sprintf("%d", [i])]

else := pattern_selects(c, a)

pattern_selects(c, a) := {p.dir | some p in named(a); in_view(c, p)}

# list_selects are the packages a go list with plain patterns names.
list_selects(c) := {d |
	some i, a in args_of(c)
	positional(args_of(c), i)
	some d in pattern_selects(c, a)
}

# pipe_selects reads `go list <patterns> | grep -v <regexp> | grep -vxF
# "$(go list <patterns>)"`: go list's packages less those the greps take
# out; any other pipe selects nothing this rule can know.
pipe_selects(pipe) := list_selects(pipe[0]) - left_out if {
	is_go(pipe[0], "list")
	stages := array.slice(pipe, 1, count(pipe))
	every st in stages {
		known_stage(st)
	}
	left_out := union({stage_excludes(st) | some st in stages})
} else := set()

known_stage(st) if {
	st.words[0] == "grep"
	st.words[1] in {"-vxF", "-v"}
	count(st.words) == 3
}

stage_excludes(st) := list_selects(st.substs["2"][0][0]) if st.words[1] == "-vxF"

else := {d | some d, p in packages; regex.match(st.words[2], p.import_path)}

# tested are the packages make test's go test lines run.
tested := union({selects(c) | some c in unit_tests})

# raced are those run with -race.
raced := union({selects(c) | some c in unit_tests; "-race" in go_args(c.words)})

# measured: the checkout has its Go sources (an edit table's copy of the
# checked files alone has none, and no packages to measure).
measured if count(input.gate.packages) > 0
