package preflight.rules.tracing_test

import data.preflight.rules.tracing

stack(stage, fn) := {"stacks": [{
	"variant": "dev", "file": "template.yaml",
	"apis": [{"id": "PlantsApi", "authorizers": ["AuthorizerFunction"], "routes": [
		{"path": "/plants", "function": "CreatePlantFunction"},
		{"path": "/health", "function": "HealthFunction"},
	]}],
	"resources": {
		"PlantsApiv1Stage": {"type": "AWS::ApiGateway::Stage", "line": 10, "properties": stage},
		"CreatePlantFunction": {"type": "AWS::Lambda::Function", "line": 20, "properties": fn},
		"AuthorizerFunction": {"type": "AWS::Lambda::Function", "line": 30, "properties": {"TracingConfig": {"Mode": "Active"}}},
		"HealthFunction": {"type": "AWS::Lambda::Function", "line": 40, "properties": {}},
	},
}]}

active := {"TracingConfig": {"Mode": "Active"}}

test_refuses_a_function_of_the_plants_passing_through if {
	some f in tracing.deny with input as stack({"TracingEnabled": true}, {"TracingConfig": {"Mode": "PassThrough"}})
	f.line == 20
	f.msg == "CreatePlantFunction [dev]: serves the plants without active tracing (TracingConfig Mode PassThrough): an incident's trace stops before it"
}

test_refuses_an_untraced_stage if {
	some f in tracing.deny with input as stack({"TracingEnabled": "false"}, active)
	f.line == 10
	contains(f.msg, "traces nothing with X-Ray (TracingEnabled false)")
}

test_passes_the_plants_traced_and_health_untraced if {
	count(tracing.deny) == 0 with input as stack({"TracingEnabled": true}, active)
}
