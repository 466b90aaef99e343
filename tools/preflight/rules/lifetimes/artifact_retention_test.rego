package preflight.rules.artifact_retention_test

import data.preflight.rules.artifact_retention

upload(inputs) := {"evidence_floor": {"artifact_min_days": 7, "artifact_max_days": 30}, "workflows": [{"file": ".github/workflows/deploy.yml", "jobs": [{"name": "build", "steps": [{
	"line": 57, "label": "actions/upload-artifact", "action": "actions/upload-artifact", "with": inputs,
}]}]}]}

test_refuses_a_day if {
	some f in artifact_retention.deny with input as upload({"name": "sam-build", "retention-days": "1"})
	f.line == 57
	contains(f.msg, "retention-days 1 is below docs/deploy.md's floor of 7 days")
}

test_refuses_a_year if {
	some f in artifact_retention.deny with input as upload({"retention-days": "365"})
	contains(f.msg, "beyond docs/deploy.md's ceiling of 30 days")
}

test_refuses_the_default if {
	some f in artifact_retention.deny with input as upload({"name": "sam-build"})
	contains(f.msg, "no retention-days")
}

test_passes_a_week if {
	count(artifact_retention.deny) == 0 with input as upload({"retention-days": "7"})
}
