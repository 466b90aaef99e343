package preflight.rules.env_secret_test

import data.preflight.rules.env_secret

fn(vars, params) := {"declared": {"template.yaml": {"parameters": params, "outputs": {}}}, "templates": {"template.yaml": {"resources": [{"id": "PreTrafficFunction", "line": 490, "properties": {"Environment": 500}}]}}, "stacks": [{"file": "template.yaml", "resources": {"PreTrafficFunction": {
	"type": "AWS::Lambda::Function", "line": 490, "source": "PreTrafficFunction", "raw": {"Environment": {"Variables": vars}},
}}}]}

test_refuses_a_client_secret if {
	some f in env_secret.deny with input as fn({"COGNITO_CLIENT_SECRET": {"Fn::If": ["UseCognito", {"Fn::GetAtt": ["UserPoolClient", "ClientSecret"]}, ""]}}, {})
	f.line == 500
	contains(f.msg, "PreTrafficFunction: Environment.Variables.COGNITO_CLIENT_SECRET holds !GetAtt UserPoolClient.ClientSecret (the app client's secret)")
}

test_refuses_a_noecho_parameter if {
	some f in env_secret.deny with input as fn({"PARTNER": {"Ref": "Partner"}}, {"Partner": {"line": 3, "value": {"NoEcho": "true"}}})
	contains(f.msg, "holds !Ref Partner (a secret parameter)")
}

test_refuses_a_resolved_secret if {
	count(env_secret.deny) == 1 with input as fn({"PARTNER": "{{resolve:secretsmanager:plantstore/partner:SecretString:key}}"}, {})
}

test_refuses_a_literal_key if {
	some f in env_secret.deny with input as fn({"PARTNER_API_KEY": "k-123456"}, {})
	contains(f.msg, "a literal of 8 characters")
}

test_passes_the_secrets_name if {
	count(env_secret.deny) == 0 with input as fn({"PARTNER_SECRET_NAME": "plantstore/partner", "COGNITO_CLIENT_ID": {"Ref": "UserPoolClient"}, "AWS_ENDPOINT_URL_LAMBDA": "", "COGNITO_TOKEN_ENDPOINT": "https://x"}, {})
}

test_passes_the_hs256_declaration_to_its_own_rule if {
	count(env_secret.deny) == 0 with input as fn({"AUTH_HS256_SECRET": "x"}, {})
}
