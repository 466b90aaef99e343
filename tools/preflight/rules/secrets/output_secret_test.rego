package preflight.rules.output_secret_test

import data.preflight.rules.output_secret

declared(params, outputs) := {"declared": {"template.yaml": {"parameters": params, "outputs": outputs}}}

test_refuses_a_client_secret if {
	some f in output_secret.deny with input as declared({}, {"ClientSecret": {"line": 9, "value": {"Value": {"Fn::GetAtt": ["UserPoolClient", "ClientSecret"]}}}})
	f.line == 9
	contains(f.msg, "output ClientSecret carries !GetAtt UserPoolClient.ClientSecret (the app client's secret)")
}

test_refuses_a_secret_in_a_sub if {
	count(output_secret.deny) == 1 with input as declared({}, {"Basic": {"line": 9, "value": {"Value": {"Fn::Sub": "${UserPoolClient}:${UserPoolClient.ClientSecret}"}}}})
}

test_refuses_an_export_of_a_noecho_parameter if {
	some f in output_secret.deny with input as declared(
		{"PartnerKey": {"line": 2, "value": {"Type": "String", "NoEcho": true}}},
		{"Partner": {"line": 9, "value": {"Value": "x", "Export": {"Name": {"Ref": "PartnerKey"}}}}},
	)
	contains(f.msg, "!Ref PartnerKey (a secret parameter)")
}

test_refuses_a_dynamic_reference if {
	count(output_secret.deny) == 1 with input as declared({}, {"Key": {"line": 9, "value": {"Value": "{{resolve:secretsmanager:plantstore/partner:SecretString:key}}"}}})
}

test_passes_the_client_id if {
	count(output_secret.deny) == 0 with input as declared({"AuthIssuer": {"line": 2, "value": {"Type": "String"}}}, {"ClientId": {"line": 9, "value": {"Value": {"Ref": "UserPoolClient"}}}, "Issuer": {"line": 12, "value": {"Value": {"Ref": "AuthIssuer"}}}})
}
