package preflight.rules.stranger_triggers_test

import data.preflight.rules.stranger_triggers

on(events) := {"workflows": [{"file": ".github/workflows/ci.yml", "triggers": [{"event": e, "line": 10 + i} | some i, e in events]}]}

test_refuses_issue_comment if {
	some f in stranger_triggers.deny with input as on(["push", "issue_comment"])
	f.line == 11
}

test_refuses_discussion if {
	count(stranger_triggers.deny) == 1 with input as on(["discussion"])
}

test_passes_push_and_pull_request if {
	count(stranger_triggers.deny) == 0 with input as on(["push", "pull_request", "workflow_call"])
}
