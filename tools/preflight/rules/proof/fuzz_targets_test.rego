package preflight.rules.fuzz_targets_test

import data.preflight.rules.fuzz_targets

fuzz(items) := {
	"proof": {"file": "proof.json", "reviewed": {"fuzz": {"targets": ["./a:FuzzA", "./b:FuzzB"]}}},
	"gate": {"packages": [], "env": [], "make_vars": {"FUZZ_TARGETS": {"line": 4}}, "runs": [{"root": "test", "as": "call", "commands": [{"line": 9, "words": ["go", "test", "-fuzz", "^$fn$", "-fuzztime", "100x", "$pkg"], "loop": items, "in_subst": false, "assigns": {}, "substs": {}}]}]},
}

test_passes_every_target if {
	count(fuzz_targets.deny) == 0 with input as fuzz(["./a:FuzzA", "./b:FuzzB", "./c:FuzzC"])
}

test_refuses_a_dropped_target if {
	count(fuzz_targets.deny) == 1 with input as fuzz(["./a:FuzzA"])
}
