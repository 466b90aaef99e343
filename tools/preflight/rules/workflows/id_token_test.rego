package preflight.rules.id_token_test

import data.preflight.rules.id_token

push_main := [{"event": "push", "config": {"branches": ["main"]}}]

job(env) := {"name": "j", "has_environment": env, "keys": {"permissions": {"line": 5, "value": {"id-token": "write"}}}}

test_refuses_a_job_without_environment if {
	count(id_token.deny) == 1 with input as {"workflows": [{"file": "w", "top": {}, "triggers": push_main, "jobs": [job(false)]}]}
}

test_passes_an_environment_job_on_push_to_main if {
	count(id_token.deny) == 0 with input as {"workflows": [{"file": "w", "top": {}, "triggers": push_main, "jobs": [job(true)]}]}
}
