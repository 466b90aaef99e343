package preflight.rules.dangerous_triggers_test

import data.preflight.rules.dangerous_triggers

test_refuses_pull_request_target if {
	count(dangerous_triggers.deny) == 1 with input as {"workflows": [{"file": "w.yml", "triggers": [{"event": "pull_request_target", "line": 3}]}]}
}

test_passes_pull_request if {
	count(dangerous_triggers.deny) == 0 with input as {"workflows": [{"file": "w.yml", "triggers": [{"event": "pull_request", "line": 3}]}]}
}
