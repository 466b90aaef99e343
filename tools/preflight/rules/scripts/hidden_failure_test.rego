package preflight.rules.hidden_failure_test

import data.preflight.rules.hidden_failure

call(id, words, more) := object.union({"id": id, "parent": -1, "end": id, "line": id + 1, "text": concat(" ", words), "kind": "call", "words": words, "negated": false, "tail": false, "cond": false, "operand": ""}, more)

or_list(y_words) := [
	{"id": 0, "parent": -1, "end": 2, "line": 1, "text": "make test || x", "kind": "or", "x": 1, "y": 2, "negated": false, "tail": false, "cond": false, "operand": ""},
	call(1, ["make", "test"], {"parent": 0, "operand": "x"}),
	call(2, y_words, {"parent": 0, "operand": "y"}),
	call(3, ["make", "lint"], {"tail": true}),
]

ci(stmts) := {"scripts": [{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "line": 1, "error": "", "stmts": stmts}], "makefile": {"rules": {}}}

test_refuses_or_true if {
	count(hidden_failure.deny) == 1 with input as ci(or_list(["true"]))
}

test_passes_or_exit_1 if {
	count(hidden_failure.deny) == 0 with input as ci(or_list(["exit", "1"]))
}

test_refuses_set_plus_e if {
	count(hidden_failure.deny) == 1 with input as ci([call(0, ["set", "-euo", "pipefail"], {}), call(1, ["set", "+e"], {})])
}

test_passes_set_e if {
	count(hidden_failure.deny) == 0 with input as ci([call(0, ["set", "-euo", "pipefail"], {})])
}

test_refuses_set_plus_o_pipefail if {
	count(hidden_failure.deny) == 1 with input as ci([call(0, ["set", "+o", "pipefail"], {})])
}

test_refuses_a_trap_that_exits if {
	count(hidden_failure.deny) == 1 with input as ci([call(0, ["trap", "exit 0", "EXIT"], {})])
}

test_refuses_negation_before_the_end if {
	count(hidden_failure.deny) == 1 with input as ci([call(0, ["make", "smoke"], {"negated": true}), call(1, ["make", "test"], {"tail": true})])
}

test_passes_negation_at_the_end if {
	count(hidden_failure.deny) == 0 with input as ci([call(0, ["grep", "x", "f"], {"negated": true, "tail": true})])
}

test_passes_negation_in_a_condition if {
	count(hidden_failure.deny) == 0 with input as ci([call(0, ["command", "-v", "x"], {"negated": true, "cond": true})])
}

test_refuses_a_script_that_does_not_parse if {
	count(hidden_failure.deny) == 1 with input as {"scripts": [{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "line": 1, "error": "1:1: bad", "stmts": []}], "makefile": {"rules": {}}}
}

# A recipe of a target the checks do not run is not read.
test_passes_a_recipe_outside_the_checks if {
	count(hidden_failure.deny) == 0 with input as {
		"scripts": [{"file": "Makefile", "kind": "recipe", "where": "target run", "target": "run", "line": 9, "error": "", "stmts": or_list(["true"])}],
		"makefile": {"rules": {"run": [], "test": [], "lint": []}},
	}
}

test_refuses_a_recipe_of_test if {
	count(hidden_failure.deny) == 1 with input as {
		"scripts": [{"file": "Makefile", "kind": "recipe", "where": "target test", "target": "test", "line": 9, "error": "", "stmts": or_list(["true"])}],
		"makefile": {"rules": {"test": [], "lint": []}},
	}
}
