package preflight.rules.privileged_trigger_test

import data.preflight.rules.privileged_trigger

job := {"name": "dev", "has_environment": true, "environment": "dev", "secret_refs": [], "keys": {}}

test_refuses_an_environment_job_on_dispatch if {
	w := {"file": "d.yml", "top": {}, "secret_refs": [], "jobs": [job], "triggers": [{"event": "push", "config": {"branches": ["main"]}}, {"event": "workflow_dispatch", "config": null}]}
	count(privileged_trigger.deny) == 1 with input as {"workflows": [w]}
}

test_passes_push_to_main if {
	w := {"file": "d.yml", "top": {}, "secret_refs": [], "jobs": [job], "triggers": [{"event": "push", "config": {"branches": ["main"]}}]}
	count(privileged_trigger.deny) == 0 with input as {"workflows": [w]}
}
