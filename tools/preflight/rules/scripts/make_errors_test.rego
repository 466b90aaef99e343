package preflight.rules.make_errors_test

import data.preflight.rules.make_errors

flags(v) := {"name": ".SHELLFLAGS", "target": "", "op": ":=", "value": v, "line": 3}

rules := {"test": [{"line": 9, "prereqs": [], "recipe": [{"line": 10, "text": "go test ./...", "dash": false}]}], "lint": []}

mk(assignments, rs) := {"makefile": {"file": "Makefile", "assignments": assignments, "rules": rs}, "scripts": []}

test_passes_e_and_pipefail if {
	count(make_errors.deny) == 0 with input as mk([flags("-eu -o pipefail -c")], rules)
}

test_refuses_no_pipefail if {
	count(make_errors.deny) == 1 with input as mk([flags("-eu -c")], rules)
}

test_refuses_no_shellflags if {
	count(make_errors.deny) == 1 with input as mk([], rules)
}

test_refuses_a_target_shellflags if {
	count(make_errors.deny) == 1 with input as mk([flags("-eu -o pipefail -c"), {"name": ".SHELLFLAGS", "target": "test", "op": ":=", "value": "-c", "line": 4}], rules)
}

test_refuses_makeflags_i if {
	count(make_errors.deny) == 1 with input as mk([flags("-eu -o pipefail -c"), {"name": "MAKEFLAGS", "target": "", "op": "+=", "value": "-i", "line": 4}], rules)
}

test_refuses_ignore if {
	count(make_errors.deny) == 1 with input as mk([flags("-eu -o pipefail -c")], object.union(rules, {".IGNORE": [{"line": 5, "prereqs": ["test"], "recipe": []}]}))
}

test_refuses_a_dash if {
	count(make_errors.deny) == 1 with input as mk([flags("-eu -o pipefail -c")], {"lint": [], "test": [{"line": 9, "prereqs": [], "recipe": [{"line": 10, "text": "go test ./...", "dash": true}]}]})
}

test_passes_a_dash_outside_the_checks if {
	count(make_errors.deny) == 0 with input as mk([flags("-eu -o pipefail -c")], object.union(rules, {"clean": [{"line": 20, "prereqs": [], "recipe": [{"line": 21, "text": "rm -r bin", "dash": true}]}]}))
}

test_refuses_a_sub_make_with_i if {
	sub := {"kind": "recipe", "file": "Makefile", "target": "test", "stmts": [{"id": 0, "line": 10, "kind": "call", "words": ["make", "-i", "fuzz"]}]}
	count(make_errors.deny) == 2 with input as {"makefile": {"file": "Makefile", "assignments": [flags("-eu -o pipefail -c")], "rules": rules}, "scripts": [sub]}
}

shell(v) := {"name": "SHELL", "target": "", "op": ":=", "value": v, "line": 2}

test_passes_bash_and_env_bash if {
	count(make_errors.deny) == 0 with input as mk([shell("bash"), flags("-eu -o pipefail -c")], rules)
	count(make_errors.deny) == 0 with input as mk([shell("/usr/bin/env bash"), flags("-eu -o pipefail -c")], rules)
}

test_refuses_a_shell_that_runs_nothing if {
	count(make_errors.deny) == 1 with input as mk([shell("true"), flags("-eu -o pipefail -c")], rules)
	count(make_errors.deny) == 1 with input as mk([shell("/bin/echo"), flags("-eu -o pipefail -c")], rules)
}

test_refuses_shell_on_make_s_command_line if {
	run := {"target": "test", "root": "test", "as": "call", "via": {"file": ".ci/run", "line": 25}, "overrides": {"SHELL": "true"}, "commands": []}
	doc := object.union(mk([shell("bash"), flags("-eu -o pipefail -c")], rules), {"gate": {"runs": [run]}})
	count(make_errors.deny) == 1 with input as doc
}
