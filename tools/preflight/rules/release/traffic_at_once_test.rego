package preflight.rules.traffic_at_once_test

import data.preflight.rules.traffic_at_once

templates := {"template.yaml": {"resources": [{"id": "Fn", "line": 10, "properties": {"DeploymentPreference": 14}}]}}

permission := {"type": "AWS::Lambda::Permission", "line": 10, "source": "Fn", "raw": {"Principal": "apigateway.amazonaws.com", "FunctionName": {"Ref": "FnAliaslive"}}}

# The shared translation says the parameter's default; the stack deploys
# its override.
declared := {"template.yaml": {
	"parameters": {"DeploymentType": {"line": 50, "value": {"Type": "String", "Default": "Canary10Percent5Minutes"}}},
	"resources": {"Fn": {"line": 10, "value": {"Type": "AWS::Serverless::Function", "Properties": {"DeploymentPreference": {"Type": {"Ref": "DeploymentType"}}}}}},
	"globals": {},
}}

stack(variant, deployment_type) := {"templates": templates, "declared": declared, "stacks": [{"variant": variant, "file": "template.yaml", "params": {"DeploymentType": deployment_type}, "resources": {
	"Fn": {"type": "AWS::Lambda::Function", "line": 10, "source": "Fn"},
	"FnAliaslive": {"type": "AWS::Lambda::Alias", "line": 10, "source": "Fn"},
	"FnPermission": permission,
	"FnDeploymentGroup": {"type": "AWS::CodeDeploy::DeploymentGroup", "line": 10, "source": "Fn", "properties": {"DeploymentConfigName": "CodeDeployDefault.LambdaCanary10Percent5Minutes"}},
}}]}

test_refuses_all_at_once_in_prod if {
	some f in traffic_at_once.deny with input as stack("prod", "AllAtOnce")
	f.line == 50
	contains(f.msg, "DeploymentType=AllAtOnce in prod's parameters moves all of prod's traffic to a new version of Fn at once")
}

test_refuses_a_function_without_a_deployment if {
	some f in traffic_at_once.deny with input as {"templates": {}, "stacks": [{"variant": "prod", "file": "template.yaml", "params": {}, "resources": {
		"Fn": {"type": "AWS::Lambda::Function", "line": 10, "source": "Fn"},
		"P": {"type": "AWS::Lambda::Permission", "line": 10, "source": "Fn", "raw": {"Principal": "apigateway.amazonaws.com", "FunctionName": {"Fn::GetAtt": ["Fn", "Arn"]}}},
	}}]}
	f.line == 10
	contains(f.msg, "with no CodeDeploy deployment")
}

test_passes_a_canary_in_prod if {
	count(traffic_at_once.deny) == 0 with input as stack("prod", "Canary10Percent5Minutes")
}

test_passes_all_at_once_in_dev if {
	count(traffic_at_once.deny) == 0 with input as stack("dev", "AllAtOnce")
}

test_refuses_a_literal_all_at_once if {
	some f in traffic_at_once.deny with input as object.union(stack("prod", "Canary10Percent5Minutes"), {"declared": {"template.yaml": {"resources": {"Fn": {"value": {"Properties": {"DeploymentPreference": {"Type": "AllAtOnce"}}}}}}}})
	f.line == 14
	contains(f.msg, "Fn: prod moves all of its traffic to a new version at once (DeploymentPreference Type AllAtOnce)")
}
