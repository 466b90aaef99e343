package preflight.rules.layer_account_test

import data.preflight.rules.layer_account

facts(layer) := {
	"stacks": [{"account": "123456789012"}],
	"templates": {"template.yaml": {"resources": [{"id": "SharedLayer", "type": "AWS::Serverless::LayerVersion"}, {"id": "Param", "type": ""}]}},
	"supply": {"template": {"file": "template.yaml", "transforms": [], "layers": [object.union({"line": 150, "resource": "Globals"}, layer)]}},
}

test_refuses_another_accounts_layer if {
	some f in layer_account.deny with input as facts({"tag": "", "value": "arn:aws:lambda:us-east-1:177933569100:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12"})
	f.line == 150
}

test_refuses_a_parameter if {
	count(layer_account.deny) == 1 with input as facts({"tag": "!Ref", "value": "LayerArn"})
}

test_passes_own_layers if {
	count(layer_account.deny) == 0 with input as facts({"tag": "!Ref", "value": "SharedLayer"})
	count(layer_account.deny) == 0 with input as facts({"tag": "!Sub", "value": "arn:aws:lambda:${AWS::Region}:${AWS::AccountId}:layer:shared:3"})
	count(layer_account.deny) == 0 with input as facts({"tag": "", "value": "arn:aws:lambda:us-east-1:123456789012:layer:shared:3"})
}
