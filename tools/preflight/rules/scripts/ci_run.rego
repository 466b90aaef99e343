# METADATA
# title: .ci/run runs every check, and ci.yml runs .ci/run
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsif
# custom:
#   id: PS-CI-001
#   danger: .ci/run without `set -euo pipefail`, or without plain top-level `make lint` and `make test`, or a ci.yml that does not run it unconditionally, lets CI pass without the checks.
#   fix: "keep `set -euo pipefail`, `make lint` and `make test` at the top level of .ci/run, and ci.yml's step `run: bash .ci/run` with no if"
package preflight.rules.ci_run

import data.preflight.lib.shell

# .ci/run is the one definition of the checks: ci.yml runs it (and the
# deploy workflow calls ci.yml first), as a plain command of a step with no
# if:, in a job with no if:. It starts with set -euo pipefail and runs make
# lint and make test as plain top-level commands: not in an if, a loop, a
# function, a subshell or a list, not negated or in the background, with no
# make flag (-i ignores errors, -n runs nothing), after no exit or exec, and
# with no function named make.

ci_yml := [w | some w in input.workflows; w.name == "ci.yml"]

deny contains {"file": ".github/workflows/ci.yml", "line": 1, "msg": "there is no ci.yml: nothing runs .ci/run"} if {
	count(ci_yml) == 0
}

deny contains {"file": w.file, "line": object.get(w.top, ["on", "line"], 1), "msg": "ci.yml has no workflow_call trigger: deploy.yml cannot run the checks first"} if {
	some w in ci_yml
	not "workflow_call" in {t.event | some t in w.triggers}
}

deny contains {"file": w.file, "line": object.get(w.top, ["jobs", "line"], 1), "msg": "no step of ci.yml runs `bash .ci/run` as a plain command, unconditionally"} if {
	some w in ci_yml
	count(runs_ci) == 0
}

runs_ci contains sc if {
	some sc in input.scripts
	sc.workflow == "ci.yml"
	some s in sc.stmts
	plain(s)
	s.words == ["bash", ".ci/run"]
	some w in ci_yml
	some j in w.jobs
	j.name == sc.job
	j["if"] == ""
	j.steps[sc.step - 1]["if"] == ""
}

# plain: a top-level command, not negated or in the background.
plain(s) if {
	s.parent == -1
	s.kind == "call"
	not s.negated
	not s.background
}

run := [sc | some sc in input.scripts; sc.kind == "ci"]

deny contains {"file": ".ci/run", "line": 1, "msg": "there is no .ci/run: CI runs no checks"} if {
	count(run) == 0
}

deny contains {"file": sc.file, "line": 1, "msg": ".ci/run's first command is not `set -euo pipefail`: a failing check would not stop the script"} if {
	some sc in run
	sc.error == ""
	not strict(sc.stmts[0])
}

strict(s) if {
	plain(s)
	s.words[0] == "set"
	args := array.slice(s.words, 1, count(s.words))
	shell.option(args, "errexit", false)
	shell.option(args, "pipefail", false)
}

deny contains {"file": sc.file, "line": s.line, "msg": "a function named make replaces the real make in .ci/run"} if {
	some sc in run
	some s in sc.stmts
	s.kind == "func"
	s.name == "make"
}

# runs(sc, target) are the top-level `make target` commands.
runs(sc, target) := {s |
	some s in sc.stmts
	plain(s)
	s.words[0] == "make"
	target in array.slice(s.words, 1, count(s.words))
}

flags(s) := [w | some w in array.slice(s.words, 1, count(s.words)); flag(w)]

flag(w) if startswith(w, "-")

flag(w) if shell.computed(w)

exits_before(sc, s) := [t |
	some t in sc.stmts
	t.id < s.id
	t.kind == "call"
	ends(t.words)
]

ends(words) if {
	words[0] == "exec"
	count(words) > 1
}

ends(words) if words in {["exit"], ["exit", "0"]}

deny contains {"file": sc.file, "line": s.line, "msg": sprintf("`make %s` with flags %v (-i ignores errors, -n runs nothing)", [target, flags(s)])} if {
	some sc in run
	some target in {"lint", "test"}
	some s in runs(sc, target)
	count(flags(s)) > 0
}

deny contains {"file": sc.file, "line": t.line, "msg": ".ci/run exits (or execs) before it runs `make lint` or `make test`"} if {
	some sc in run
	some target in {"lint", "test"}
	some s in runs(sc, target)
	count(flags(s)) == 0
	some t in exits_before(sc, s)
}

deny contains {"file": sc.file, "line": 1, "msg": sprintf("no plain top-level `make %s` in .ci/run: it is missing, or in an if, a list (|| && |), a subshell, negated with !, backgrounded with &, given flags, or after an exit", [target])} if {
	some sc in run
	sc.error == ""
	some target in {"lint", "test"}
	count(runs(sc, target)) == 0
}
