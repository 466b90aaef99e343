package preflight.rules.session_duration_test

import data.preflight.rules.session_duration

role(seconds) := {"evidence_floor": {"session_max_seconds": 3600}, "templates": {"pipeline/roles.yaml": {"resources": [{"id": "DeployRole", "line": 167, "properties": {"MaxSessionDuration": 170}}]}}, "stacks": [{"file": "pipeline/roles.yaml", "resources": {"DeployRole": {
	"type": "AWS::IAM::Role", "line": 167, "source": "DeployRole", "properties": {"MaxSessionDuration": seconds},
}}}]}

test_refuses_twelve_hours if {
	some f in session_duration.deny with input as role(43200)
	f.file == "pipeline/roles.yaml"
	f.line == 170
	contains(f.msg, "DeployRole: MaxSessionDuration 43200 s, beyond docs/deploy.md's ceiling of 3600 s")
}

test_passes_an_hour if {
	count(session_duration.deny) == 0 with input as role(3600)
}

test_passes_unset if {
	count(session_duration.deny) == 0 with input as {"evidence_floor": {"session_max_seconds": 3600}, "templates": {}, "stacks": [{"file": "pipeline/roles.yaml", "resources": {"R": {"type": "AWS::IAM::Role", "line": 1, "source": "R", "properties": {}}}}]}
}
