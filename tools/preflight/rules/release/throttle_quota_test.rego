package preflight.rules.throttle_quota_test

import data.preflight.rules.throttle_quota

stage(settings) := stage_in(settings, [], {})

stage_in(settings, raw, params) := {"templates": {"template.yaml": {"resources": [{"id": "PlantsApi", "line": 5, "properties": {"MethodSettings": 20}}]}}, "stacks": [{"variant": "prod", "file": "template.yaml", "params": params, "resources": {"PlantsApiv1Stage": {
	"type": "AWS::ApiGateway::Stage", "line": 5, "source": "PlantsApi", "raw": {"MethodSettings": raw}, "properties": {"MethodSettings": settings},
}}}]}

test_refuses_beyond_the_account if {
	some f in throttle_quota.deny with input as stage([{"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": "20000", "ThrottlingBurstLimit": "10000"}])
	f.line == 20
	contains(f.msg, "throttles at rate 20000 and burst 10000, beyond the account's quota")
}

test_refuses_no_throttle if {
	some f in throttle_quota.deny with input as stage([{"ResourcePath": "/*", "HttpMethod": "*", "MetricsEnabled": true}])
	contains(f.msg, "no throttle on every method")
}

test_refuses_a_usage_plan if {
	count(throttle_quota.deny) == 1 with input as {"templates": {}, "stacks": [{"file": "template.yaml", "resources": {"Plan": {"type": "AWS::ApiGateway::UsagePlan", "line": 3, "source": "Plan", "properties": {"Throttle": {"RateLimit": 50000, "BurstLimit": 100}}}}}]}
}

test_passes_the_stages_throttle if {
	count(throttle_quota.deny) == 0 with input as stage([{"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": "50", "ThrottlingBurstLimit": "100"}])
}

test_refuses_the_environments_parameter if {
	some f in throttle_quota.deny with input as stage_in(
		[{"ResourcePath": "/*", "HttpMethod": "*", "ThrottlingRateLimit": "20000", "ThrottlingBurstLimit": "100"}],
		[{"ThrottlingRateLimit": {"Ref": "ThrottlingRateLimit"}, "ThrottlingBurstLimit": {"Ref": "ThrottlingBurstLimit"}}],
		{"ThrottlingRateLimit": "20000"},
	)
	contains(f.msg, "throttles at rate 20000 (ThrottlingRateLimit=20000 in prod's parameters), beyond")
}
