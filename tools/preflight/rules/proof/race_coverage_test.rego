package preflight.rules.race_coverage_test

import data.preflight.rules.race_coverage

cmd(words) := {"line": 9, "words": words, "assigns": {}, "substs": {}, "in_subst": false}

tests(cmds) := {
	"proof": {"file": "proof.json", "reviewed": {"race": ["b"]}},
	"gate": {
		"packages": [{"dir": "a", "import_path": "m/a", "module": "."}, {"dir": "b", "import_path": "m/b", "module": "."}],
		"env": [], "make_vars": {"RACE_FREE": {"line": 3}},
		"runs": [{"target": "test", "root": "test", "as": "call", "commands": cmds}],
	},
}

test_passes_b_under_race if {
	count(race_coverage.deny) == 0 with input as tests([cmd(["go", "test", "./a"]), cmd(["go", "test", "-race", "./b"])])
}

test_refuses_b_without_race if {
	count(race_coverage.deny) == 1 with input as tests([cmd(["go", "test", "./a", "./b"])])
}

test_passes_b_untested if {
	# PS-CI-002 reports it.
	count(race_coverage.deny) == 0 with input as tests([cmd(["go", "test", "./a"])])
}
