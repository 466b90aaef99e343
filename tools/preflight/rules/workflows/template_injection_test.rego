package preflight.rules.template_injection_test

import data.preflight.rules.template_injection

wf(run) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "steps": [{"index": 1, "label": "x", "line": 3, "action": "", "run": run, "with": {}}]}]}]}

test_refuses_an_expression if {
	count(template_injection.deny) == 1 with input as wf("echo ${{ github.event.head_commit.message }}")
}

test_passes_an_env_variable if {
	count(template_injection.deny) == 0 with input as wf("echo \"$MESSAGE\"")
}
