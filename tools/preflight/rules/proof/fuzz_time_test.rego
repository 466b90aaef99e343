package preflight.rules.fuzz_time_test

import data.preflight.rules.fuzz_time

fuzz(t) := {
	"proof": {"file": "proof.json", "reviewed": {"fuzz": {"time": "20000x"}}},
	"gate": {"packages": [], "env": [], "make_vars": {"FUZZTIME": {"value": t, "file": "Makefile", "line": 13}}, "runs": [{"root": "test", "as": "call", "commands": [{"line": 9, "words": ["go", "test", "-fuzz", "F", "-fuzztime", t, "./a"], "loop": [], "in_subst": false, "assigns": {}, "substs": {}}]}]},
}

test_passes_more_executions if {
	count(fuzz_time.deny) == 0 with input as fuzz("50000x")
}

test_refuses_fewer_executions if {
	count(fuzz_time.deny) == 1 with input as fuzz("2000x")
}

test_refuses_a_duration_for_a_count if {
	count(fuzz_time.deny) == 1 with input as fuzz("30s")
}
