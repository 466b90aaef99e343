package preflight.rules.cache_poisoning_test

import data.preflight.rules.cache_poisoning

wf(inputs) := {"workflows": [{"file": "d", "name": "d.yml", "triggers": [{"event": "push", "config": {"branches": ["main"]}}], "jobs": [{"name": "b", "uses": "", "steps": [{"index": 1, "label": "go", "line": 3, "action": "actions/setup-go", "with": inputs}]}]}]}

test_refuses_setup_go_by_default if {
	count(cache_poisoning.deny) == 1 with input as wf({})
}

test_passes_setup_go_without_cache if {
	count(cache_poisoning.deny) == 0 with input as wf({"cache": "false"})
}
