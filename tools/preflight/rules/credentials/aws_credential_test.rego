package preflight.rules.aws_credential_test

import data.preflight.rules.aws_credential

role := {"file": "pipeline/roles.yaml", "variable": "AWS_DEPLOY_ROLE_ARN", "environments": ["dev", "prod"]}

wf(inputs) := {"oidc_role": role, "workflows": [{"file": "d", "top": {}, "jobs": [{
	"name": "dev", "has_environment": true, "environment": "dev",
	"keys": {"permissions": {"line": 3, "value": {"id-token": "write"}}},
	"steps": [{"index": 1, "label": "aws", "line": 5, "keys": {}, "action": "aws-actions/configure-aws-credentials", "with": inputs}],
}]}]}

test_refuses_stored_keys if {
	count(aws_credential.deny) >= 1 with input as wf({"aws-access-key-id": "${{ secrets.K }}", "role-to-assume": "${{ vars.AWS_DEPLOY_ROLE_ARN }}"})
}

test_refuses_another_role if {
	count(aws_credential.deny) == 1 with input as wf({"role-to-assume": "arn:aws:iam::123456789012:role/admin"})
}

test_passes_the_role if {
	count(aws_credential.deny) == 0 with input as wf({"role-to-assume": "${{ vars.AWS_DEPLOY_ROLE_ARN }}", "aws-region": "${{ vars.AWS_REGION }}"})
}
