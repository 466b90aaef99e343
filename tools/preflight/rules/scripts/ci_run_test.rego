package preflight.rules.ci_run_test

import data.preflight.rules.ci_run

call(id, words, more) := object.union({"id": id, "parent": -1, "end": id, "line": id + 1, "kind": "call", "words": words, "negated": false, "background": false}, more)

good := [call(0, ["set", "-euo", "pipefail"], {}), call(1, ["make", "lint"], {}), call(2, ["make", "test"], {})]

ci_yml(step_if) := {
	"name": "ci.yml", "file": ".github/workflows/ci.yml", "top": {"on": {"line": 3}, "jobs": {"line": 9}},
	"triggers": [{"event": "pull_request"}, {"event": "workflow_call"}],
	"jobs": [{"name": "ci", "if": "", "steps": [{"if": step_if}]}],
}

facts(stmts, step_if) := {
	"workflows": [ci_yml(step_if)],
	"scripts": [
		{"kind": "step", "workflow": "ci.yml", "job": "ci", "step": 1, "error": "", "stmts": [call(0, ["bash", ".ci/run"], {})]},
		{"file": ".ci/run", "kind": "ci", "error": "", "stmts": stmts},
	],
}

test_passes_the_checks if {
	count(ci_run.deny) == 0 with input as facts(good, "")
}

test_refuses_a_skipped_step if {
	count(ci_run.deny) == 1 with input as facts(good, "false")
}

test_refuses_no_pipefail if {
	count(ci_run.deny) == 1 with input as facts(array.concat([call(0, ["set", "-eu"], {})], array.slice(good, 1, 3)), "")
}

test_refuses_make_test_in_the_background if {
	count(ci_run.deny) == 1 with input as facts(array.concat(array.slice(good, 0, 2), [call(2, ["make", "test"], {"background": true})]), "")
}

test_refuses_make_i_test if {
	count(ci_run.deny) == 1 with input as facts(array.concat(array.slice(good, 0, 2), [call(2, ["make", "-i", "test"], {})]), "")
}

test_refuses_an_exit_before_the_checks if {
	stmts := [call(0, ["set", "-euo", "pipefail"], {}), call(1, ["exit", "0"], {}), call(2, ["make", "lint"], {}), call(3, ["make", "test"], {})]
	count(ci_run.deny) == 1 with input as facts(stmts, "")
}

test_refuses_a_function_named_make if {
	stmts := array.concat(good, [{"id": 3, "parent": -1, "end": 3, "line": 4, "kind": "func", "name": "make"}])
	count(ci_run.deny) == 1 with input as facts(stmts, "")
}
