package preflight.rules.run_shell_test

import data.preflight.rules.run_shell

wf(shell) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "steps": [{"index": 1, "label": "x", "line": 3, "run": "make test | tee log", "shell": shell}]}]}]}

test_refuses_the_default_shell if {
	count(run_shell.deny) == 1 with input as wf("")
}

test_refuses_bash_without_e if {
	count(run_shell.deny) == 1 with input as wf("bash {0}")
}

test_passes_bash if {
	count(run_shell.deny) == 0 with input as wf("bash")
}
