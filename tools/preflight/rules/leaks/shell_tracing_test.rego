package preflight.rules.shell_tracing_test

import data.preflight.rules.shell_tracing

configure := {"index": 1, "line": 10, "label": "aws", "action": "aws-actions/configure-aws-credentials", "run": "", "keys": {}}

deploy(run, keys) := {"index": 2, "line": 14, "label": "deploy", "action": "", "run": run, "keys": object.union({"run": {"line": 15}}, keys)}

facts(steps, settings) := {"workflows": [{"file": ".github/workflows/deploy.yml", "top": {}, "jobs": [{"name": "dev", "keys": {}, "steps": steps}]}], "supply": {"settings": settings}}

test_refuses_set_x_after_configure_aws_credentials if {
	some f in shell_tracing.deny with input as facts([configure, deploy("set -x\nsam deploy\n", {})], [])
	f.line == 16
}

test_refuses_bash_x_shell if {
	count(shell_tracing.deny) == 1 with input as facts([configure, deploy("sam deploy", {"shell": {"line": 17, "value": "bash -x {0}"}})], [])
}

test_refuses_set_euxo_with_a_secret if {
	count(shell_tracing.deny) == 1 with input as facts([deploy("set -euxo pipefail\ncurl -H \"$TOKEN\" x\n", {"env": {"line": 16, "value": {"TOKEN": "${{ secrets.API_TOKEN }}"}}})], [])
}

test_refuses_step_debug_in_env if {
	count(shell_tracing.deny) == 1 with input as facts([configure, deploy("sam deploy", {})], [{"file": ".github/workflows/deploy.yml", "line": 3, "job": "", "step": 0, "in": "env", "name": "ACTIONS_STEP_DEBUG", "value": "true"}])
}

test_passes_tracing_without_credentials if {
	count(shell_tracing.deny) == 0 with input as facts([deploy("set -x\nmake build\n", {})], [])
	count(shell_tracing.deny) == 0 with input as facts([configure, deploy("set -euo pipefail\nsam deploy\n", {})], [])
}
