package preflight.rules.staticcheck_checks_test

import data.preflight.rules.staticcheck_checks

sc(words, confs) := {
	"proof": {"file": "proof.json", "reviewed": {"staticcheck": {"enabled": ["inherit"], "excluded": ["ST1000"], "tests": true}}},
	"gate": {"packages": [], "env": [], "staticcheck_conf": confs, "runs": [{"target": "lint", "root": "lint", "as": "call", "commands": [{"line": 7, "words": words, "assigns": {}, "in_subst": false, "substs": {}}]}]},
}

conf := [{"file": "staticcheck.conf", "text": "checks = [\"inherit\", \"-ST1000\"]\n"}]

test_passes_the_reviewed_checks if {
	count(staticcheck_checks.deny) == 0 with input as sc(["./.bin/staticcheck", "./..."], conf)
}

test_refuses_an_excluded_check if {
	count(staticcheck_checks.deny) == 1 with input as sc(["./.bin/staticcheck", "-checks=inherit,-ST1000,-SA1019", "./..."], [])
}

test_refuses_a_conf_exclusion if {
	more := [{"file": "tools/staticcheck.conf", "text": "checks = [\"inherit\", \"-ST1000\", \"-U1000\"]"}]
	count(staticcheck_checks.deny) == 1 with input as sc(["./.bin/staticcheck", "./..."], more)
}

test_refuses_tests_left_out if {
	count(staticcheck_checks.deny) == 1 with input as sc(["./.bin/staticcheck", "-tests=false", "./..."], conf)
}

test_refuses_a_conf_that_runs_only_some_checks if {
	only := [{"file": "samlocal/staticcheck.conf", "text": "checks = [\"SA*\"]"}]
	count(staticcheck_checks.deny) == 1 with input as sc(["./.bin/staticcheck", "./..."], array.concat(conf, only))
}
