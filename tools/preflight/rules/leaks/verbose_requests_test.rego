package preflight.rules.verbose_requests_test

import data.preflight.rules.verbose_requests

configure := {"index": 1, "line": 10, "label": "aws", "action": "aws-actions/configure-aws-credentials", "run": "", "keys": {}}

step(run) := {"index": 2, "line": 14, "label": "smoke", "action": "", "run": run, "keys": {"run": {"line": 15}}}

facts(steps) := {"workflows": [{"file": ".github/workflows/deploy.yml", "top": {}, "jobs": [{"name": "dev", "keys": {}, "steps": steps}]}]}

test_refuses_curl_verbose_with_a_client_secret if {
	some f in verbose_requests.deny with input as facts([configure, step("token=$(curl -svf -u \"$id:$secret\" -d x \"$url\")\n")])
	f.line == 16
}

test_refuses_sam_deploy_debug if {
	count(verbose_requests.deny) == 1 with input as facts([configure, step("sam deploy --config-env dev --debug")])
}

test_passes_quiet_curl if {
	count(verbose_requests.deny) == 0 with input as facts([configure, step("token=$(curl -sf -u \"$id:$secret\" -d x \"$url\")\n")])
	count(verbose_requests.deny) == 0 with input as facts([step("curl -v https://example.com")])
}

test_refuses_aws_debug_on_a_continued_line_of_a_substitution if {
	run := "secret=$(aws cognito-idp describe-user-pool-client --user-pool-id \"$pool\" \\\n  --client-id \"$id\" --query UserPoolClient.ClientSecret --output text --debug)\necho ok\n"
	some f in verbose_requests.deny with input as facts([configure, step(run)])
	f.line == 16
}
