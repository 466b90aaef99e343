package preflight.rules.gosec_checks_test

import data.preflight.rules.gosec_checks

gosec(words) := {
	"proof": {"file": "proof.json", "reviewed": {"gosec": {"excluded": [], "included": [], "exclude_dirs": [], "severity": "low", "confidence": "low", "fails": true}}},
	"gate": {"packages": [], "env": [], "runs": [{"target": "lint", "root": "lint", "as": "call", "commands": [{"line": 7, "words": words, "assigns": {}, "in_subst": false, "substs": {}}]}]},
}

test_passes_the_reviewed_run if {
	count(gosec_checks.deny) == 0 with input as gosec(["./.bin/gosec", "-quiet", "$pkgs"])
}

test_refuses_an_excluded_rule if {
	count(gosec_checks.deny) == 1 with input as gosec(["./.bin/gosec", "-quiet", "-exclude=G304", "$pkgs"])
}

test_refuses_no_fail if {
	count(gosec_checks.deny) == 1 with input as gosec(["./.bin/gosec", "-no-fail", "$pkgs"])
}

test_refuses_a_higher_severity if {
	count(gosec_checks.deny) == 1 with input as gosec(["./.bin/gosec", "-severity", "high", "$pkgs"])
}

test_refuses_only_some_rules if {
	count(gosec_checks.deny) == 1 with input as gosec(["./.bin/gosec", "-include=G101", "$pkgs"])
}
