package preflight.rules.checks_env_test

import data.preflight.rules.checks_env

job := {"file": "ci.yml", "name": "check", "step": 3}

env(v) := {"gate": {"job": job, "env": [{"name": "CI", "value": v, "file": "ci.yml", "line": 7}], "scripts": []}}

step(n, c) := {"gate": {"job": job, "env": [], "scripts": [{"file": "ci.yml", "job": "check", "step": n, "line": 9, "commands": [c]}]}}

test_passes_literal if {
	count(checks_env.deny) == 0 with input as env("true")
}

test_passes_the_job_token if {
	count(checks_env.deny) == 0 with input as env("${{ github.token }}")
}

test_refuses_a_repository_variable if {
	count(checks_env.deny) == 1 with input as env("${{ vars.STRICT_CI }}")
}

test_refuses_github_env_before_ci_run if {
	c := {"words": ["echo", "GOFLAGS=-run=TestA"], "redirects": [{"op": ">>", "target": "$GITHUB_ENV"}]}
	count(checks_env.deny) == 1 with input as step(2, c)
}

test_passes_github_env_after_ci_run if {
	c := {"words": ["echo", "X=1"], "redirects": [{"op": ">>", "target": "$GITHUB_ENV"}]}
	count(checks_env.deny) == 0 with input as step(4, c)
}
