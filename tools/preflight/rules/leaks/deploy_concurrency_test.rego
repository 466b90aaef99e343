package preflight.rules.deploy_concurrency_test

import data.preflight.rules.deploy_concurrency

wf(top, job_keys) := {"workflows": [{"file": ".github/workflows/deploy.yml", "top": top, "jobs": [{"name": "prod", "line": 120, "has_environment": true, "keys": job_keys, "steps": []}]}]}

group(value) := {"concurrency": {"line": 27, "value": value}}

test_refuses_no_concurrency if {
	some f in deploy_concurrency.deny with input as wf({}, {})
	f.line == 120
}

test_refuses_a_group_per_commit if {
	count(deploy_concurrency.deny) == 1 with input as wf(group({"group": "deploy-${{ github.sha }}", "cancel-in-progress": "false"}), {})
}

test_refuses_cancel_in_progress if {
	count(deploy_concurrency.deny) == 1 with input as wf(group({"group": "deploy", "cancel-in-progress": "true"}), {})
}

test_passes_one_deploy_group if {
	count(deploy_concurrency.deny) == 0 with input as wf(group({"group": "deploy", "cancel-in-progress": "false"}), {})
	count(deploy_concurrency.deny) == 0 with input as wf({}, group("deploy-prod"))
}
