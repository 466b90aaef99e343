package preflight.rules.continue_on_error_test

import data.preflight.rules.continue_on_error

wf(v) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "keys": {}, "steps": [{"index": 1, "label": "x", "line": 3, "keys": {"continue-on-error": {"line": 4, "value": v}}}]}]}]}

test_refuses_true if {
	count(continue_on_error.deny) == 1 with input as wf("true")
}

test_passes_false if {
	count(continue_on_error.deny) == 0 with input as wf("false")
}
