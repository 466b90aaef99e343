package preflight.rules.lambda_permission_test

import data.preflight.rules.lambda_permission

api := "arn:aws:execute-api:eu-west-1:123456789012:abc123"

stack(p) := {"stacks": [{
	"variant": "dev", "file": "template.yaml", "partition": "aws", "region": "eu-west-1", "account": "123456789012",
	"apis": [{"id": "PlantsApi", "ref": "abc123", "stages": ["v1"], "authorizers": ["AuthorizerFunction"], "routes": [
		{"name": "POST /plants", "method": "POST", "path": "/plants", "function": "CreatePlantFunction"},
		{"name": "GET /plants/{id}", "method": "GET", "path": "/plants/{id}", "function": "GetPlantFunction"},
	]}],
	"resources": {
		"CreatePlantFunction": {"type": "AWS::Lambda::Function", "ref": "plant-store-dev-CreatePlant", "line": 3},
		"AuthorizerFunction": {"type": "AWS::Lambda::Function", "ref": "plant-store-dev-Authorizer", "line": 5},
		"Permission": {"type": "AWS::Lambda::Permission", "line": 9, "error": "", "properties": object.union(
			{"Action": "lambda:InvokeFunction", "FunctionName": "plant-store-dev-CreatePlant:live", "Principal": "apigateway.amazonaws.com"},
			p,
		)},
	},
}]}

refusal(p) := f.msg if some f in lambda_permission.deny with input as stack(p)

test_refuses_any_api if {
	refusal({"SourceArn": "arn:aws:execute-api:eu-west-1:123456789012:*"}) == `Permission [dev]: lets API Gateway invoke CreatePlantFunction from arn:aws:execute-api:eu-west-1:123456789012:*: "*" is no RestApi of this stack (its Ref), so any API of the account matches`
}

test_refuses_another_principal if {
	contains(refusal({"Principal": "*", "SourceArn": concat("", [api, "/*/POST/plants"])}), "lets * invoke CreatePlantFunction")
}

test_refuses_another_service if {
	contains(refusal({"Principal": "s3.amazonaws.com"}), "lets s3.amazonaws.com invoke")
}

test_refuses_an_undeclared_route if {
	contains(refusal({"SourceArn": concat("", [api, "/*/DELETE/plants"])}), "names no stage and route the template declares")
}

test_refuses_another_functions_route if {
	contains(refusal({"SourceArn": concat("", [api, "/v1/GET/plants/*"])}), "the route GET /plants/{id} invokes another function")
}

test_refuses_an_unknown_stage if {
	contains(refusal({"SourceArn": concat("", [api, "/v2/POST/plants"])}), "names no stage and route")
}

test_refuses_another_account if {
	contains(refusal({"SourceArn": "arn:aws:execute-api:eu-west-1:210987654321:abc123/*/POST/plants"}), `account "210987654321", not this stack's`)
}

test_refuses_no_source if {
	contains(refusal({}), "with no SourceArn: any API of any account may")
}

test_refuses_another_action if {
	contains(refusal({"Action": "lambda:*"}), "grants lambda:* on CreatePlantFunction")
}

test_refuses_a_function_url if {
	contains(refusal({"FunctionUrlAuthType": "NONE"}), "function URL")
}

test_refuses_a_function_of_elsewhere if {
	contains(refusal({"FunctionName": "arn:aws:lambda:eu-west-1:123456789012:function:other"}), "which is no function of this stack")
}

test_refuses_a_function_as_authorizer_it_is_not if {
	contains(refusal({"SourceArn": concat("", [api, "/authorizers/*"])}), "the function is no Lambda authorizer of that API")
}

test_passes_the_routes_permission if {
	count(lambda_permission.deny) == 0 with input as stack({"SourceArn": concat("", [api, "/*/POST/plants"])})
}

test_passes_a_stage_and_an_arn if {
	count(lambda_permission.deny) == 0 with input as stack({"SourceArn": concat("", [api, "/v1/POST/plants"]), "FunctionName": "arn:aws:lambda:eu-west-1:123456789012:function:plant-store-dev-CreatePlant"})
}

test_passes_the_authorizers_permission if {
	count(lambda_permission.deny) == 0 with input as stack({"SourceArn": concat("", [api, "/authorizers/x1"]), "FunctionName": "plant-store-dev-Authorizer"})
}

test_told_once_for_every_variant if {
	s := stack({})
	two := {"stacks": [s.stacks[0], object.union(s.stacks[0], {"variant": "prod"})]}
	[f.msg | some f in lambda_permission.deny] == ["Permission [dev, prod]: lets API Gateway invoke CreatePlantFunction with no SourceArn: any API of any account may"] with input as two
}
