package preflight.rules.env_dump_test

import data.preflight.rules.env_dump

configure := {"index": 1, "line": 10, "label": "aws", "action": "aws-actions/configure-aws-credentials", "run": "", "with": {}, "keys": {}}

step(run) := {"index": 2, "line": 14, "label": "debug", "action": "", "run": run, "with": {}, "keys": {"run": {"line": 15}}}

facts(steps) := {"workflows": [{"file": ".github/workflows/deploy.yml", "top": {}, "jobs": [{"name": "dev", "keys": {}, "steps": steps}]}]}

test_refuses_printenv_after_credentials if {
	some f in env_dump.deny with input as facts([configure, step("printenv | sort\n")])
	f.line == 16
}

test_refuses_env_to_a_file if {
	count(env_dump.deny) == 1 with input as facts([step("env > build-env.txt")])
}

test_refuses_to_json_secrets if {
	count(env_dump.deny) == 1 with input as facts([object.union(step("echo ok"), {"keys": {"run": {"line": 15}, "env": {"line": 16, "value": {"ALL": "${{ toJSON(secrets) }}"}}}})])
}

test_passes_a_named_variable if {
	count(env_dump.deny) == 0 with input as facts([configure, step("echo \"region: $AWS_REGION\"\nenv -u MAKEFLAGS sam build\n")])
	count(env_dump.deny) == 0 with input as facts([step("env | sort")])
}
