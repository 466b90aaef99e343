package preflight.rules.session_request_test

import data.preflight.rules.session_request

floor := {"session_min_seconds": 1800, "session_max_seconds": 3600}

step(inputs) := {"evidence_floor": floor, "workflows": [{"file": ".github/workflows/deploy.yml", "jobs": [{"name": "prod", "steps": [{
	"line": 134, "action": "aws-actions/configure-aws-credentials", "with": inputs,
}]}]}]}

test_refuses_twelve_hours if {
	some f in session_request.deny with input as step({"role-duration-seconds": "43200"})
	f.line == 134
	contains(f.msg, "job prod: role-duration-seconds 43200 is beyond docs/deploy.md's ceiling of 3600 s")
}

test_refuses_fifteen_minutes if {
	some f in session_request.deny with input as step({"role-duration-seconds": "900"})
	contains(f.msg, "is below docs/deploy.md's floor of 1800 s")
}

test_passes_the_default if {
	count(session_request.deny) == 0 with input as step({"role-to-assume": "x"})
}

test_passes_within if {
	count(session_request.deny) == 0 with input as step({"role-duration-seconds": "3000"})
}
