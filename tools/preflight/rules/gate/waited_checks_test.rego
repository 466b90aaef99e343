package preflight.rules.waited_checks_test

import data.preflight.rules.waited_checks

cmd(words, bg) := {"line": 3, "words": words, "background": bg}

run(cmds) := {"gate": {"runs": [{"target": "fuzz", "commands": cmds}]}}

test_passes_a_waited_check_that_fails_the_recipe if {
	count(waited_checks.deny) == 0 with input as run([cmd(["go", "test", "-fuzz", "F"], true), cmd(["wait", "$pid"], false), cmd(["exit", "1"], false)])
}

test_refuses_failures_turned_into_warnings if {
	count(waited_checks.deny) == 1 with input as run([cmd(["go", "test", "-fuzz", "F"], true), cmd(["wait", "$pid"], false), cmd(["echo", "::warning::fuzz failed"], false)])
}

test_refuses_no_wait if {
	count(waited_checks.deny) == 1 with input as run([cmd(["go", "test", "-fuzz", "F"], true), cmd(["exit", "1"], false)])
}
