package preflight.rules.parameter_noecho_test

import data.preflight.rules.parameter_noecho

params(p) := {"declared": {"template.yaml": {"parameters": p, "outputs": {}}}}

test_refuses_a_webhook_token if {
	some f in parameter_noecho.deny with input as params({"SlackWebhookToken": {"line": 7, "value": {"Type": "String", "Default": ""}}})
	f.line == 7
	contains(f.msg, "parameter SlackWebhookToken is named as a secret but has no NoEcho: true")
}

test_refuses_a_key_with_noecho_false if {
	count(parameter_noecho.deny) == 1 with input as params({"PartnerApiKey": {"line": 7, "value": {"Type": "String", "NoEcho": "false"}}})
}

test_passes_noecho if {
	count(parameter_noecho.deny) == 0 with input as params({"PartnerApiKey": {"line": 7, "value": {"Type": "String", "NoEcho": true}}})
}

test_passes_names_that_only_name_a_secret if {
	count(parameter_noecho.deny) == 0 with input as params({
		"KmsKeyArn": {"line": 1, "value": {}}, "TokenEndpoint": {"line": 2, "value": {}}, "AuthJwksUrl": {"line": 3, "value": {}},
		"HostedZoneId": {"line": 4, "value": {}}, "PartnerSecretName": {"line": 5, "value": {}}, "CodeS3Key": {"line": 6, "value": {}},
	})
}
