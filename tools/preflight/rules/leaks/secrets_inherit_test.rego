package preflight.rules.secrets_inherit_test

import data.preflight.rules.secrets_inherit

call(secrets) := {"workflows": [{"file": ".github/workflows/deploy.yml", "jobs": [{"name": "ci", "uses": "./.github/workflows/ci.yml", "keys": {"uses": {"line": 33, "value": "./.github/workflows/ci.yml"}, "secrets": {"line": 34, "value": secrets}}}]}]}

test_refuses_inherit if {
	some f in secrets_inherit.deny with input as call("inherit")
	f.line == 34
}

test_passes_named_secrets if {
	count(secrets_inherit.deny) == 0 with input as call({"SONAR_TOKEN": "${{ secrets.SONAR_TOKEN }}"})
}
