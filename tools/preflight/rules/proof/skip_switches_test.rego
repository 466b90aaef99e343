package preflight.rules.skip_switches_test

import data.preflight.rules.skip_switches

tests(env, assigns) := {
	"proof": {"file": "proof.json", "reviewed": {"skips": {"CI": "true", "NO_BROWSER": ""}}},
	"gate": {"packages": [], "env": env, "runs": [{"target": "test", "root": "test", "as": "call", "commands": [{"line": 7, "words": ["go", "test", "./..."], "assigns": assigns, "in_subst": false, "substs": {}}]}]},
}

test_passes_ci_true if {
	count(skip_switches.deny) == 0 with input as tests([{"name": "CI", "value": "true", "file": "", "line": 0}], {"CI": "true"})
}

test_refuses_no_browser_in_the_workflow if {
	env := [{"name": "CI", "value": "true", "file": "", "line": 0}, {"name": "NO_BROWSER", "value": "1", "file": "ci.yml", "line": 9}]
	count(skip_switches.deny) == 1 with input as tests(env, {"CI": "true"})
}

test_refuses_ci_false_in_the_makefile if {
	count(skip_switches.deny) == 1 with input as tests([], {"CI": "false"})
}

test_refuses_ci_false_in_the_workflow if {
	env := [{"name": "CI", "value": "false", "file": "ci.yml", "line": 9}]
	count(skip_switches.deny) == 1 with input as tests(env, {"CI": "true", "NO_BROWSER": "1"})
}
