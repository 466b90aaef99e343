package preflight.rules.self_hosted_runner_test

import data.preflight.rules.self_hosted_runner

wf(labels) := {"workflows": [{"file": "w", "triggers": [{"event": "push"}], "jobs": [{"name": "j", "line": 2, "uses": "", "keys": {}, "runner_labels": labels, "secret_refs": []}]}]}

test_refuses_self_hosted if {
	count(self_hosted_runner.deny) == 1 with input as wf(["self-hosted", "linux"])
}

test_refuses_an_expression if {
	count(self_hosted_runner.deny) == 1 with input as wf(["${{ vars.RUNNER }}"])
}

test_passes_ubuntu if {
	count(self_hosted_runner.deny) == 0 with input as wf(["ubuntu-24.04-arm"])
}
