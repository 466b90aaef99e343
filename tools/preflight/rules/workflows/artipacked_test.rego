package preflight.rules.artipacked_test

import data.preflight.rules.artipacked

wf(inputs) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "steps": [{"index": 1, "label": "x", "line": 3, "action": "actions/checkout", "with": inputs}]}]}]}

test_refuses_the_default if {
	count(artipacked.deny) == 1 with input as wf({})
}

test_passes_false if {
	count(artipacked.deny) == 0 with input as wf({"persist-credentials": "false"})
}
