package preflight.rules.access_log_test

import data.preflight.rules.access_log

floor := ["$context.requestId", "$context.extendedRequestId", "$context.integration.requestId", "$context.identity.sourceIp", "$context.status"]

group := "arn:aws:logs:eu-west-1:123456789012:log-group:/aws/apigateway/plant-store-dev"

format := `{"requestId":"$context.requestId","ext":"${context.extendedRequestId}","lambda":"$context.integration.requestId","ip":"$context.identity.sourceIp","status":"$context.status"}`

probe(setting) := {"evidence_floor": {"access_log": floor}, "stacks": [
	{"variant": "dev", "file": "template.yaml", "resources": {}},
	{"variant": "dev", "probe": true, "file": "template.yaml", "partition": "aws", "region": "eu-west-1", "account": "123456789012", "resources": {
		"ApiAccessLogGroup": {"type": "AWS::Logs::LogGroup", "line": 5, "ref": "/aws/apigateway/plant-store-dev"},
		"PlantsApiv1Stage": {"type": "AWS::ApiGateway::Stage", "line": 10, "properties": {"AccessLogSetting": setting}},
	}},
]}

test_refuses_a_format_without_the_request_ids if {
	some f in access_log.deny with input as probe({"Format": `{"status":"$context.status"}`, "DestinationArn": concat("", [group, ":*"])})
	f.line == 10
	f.msg == "PlantsApiv1Stage [dev]: the access log format lacks $context.requestId, $context.extendedRequestId, $context.integration.requestId, $context.identity.sourceIp: a request cannot be followed from the client to the function"
}

test_refuses_a_log_elsewhere if {
	some f in access_log.deny with input as probe({"Format": format, "DestinationArn": "arn:aws:logs:eu-west-1:123456789012:log-group:other"})
	contains(f.msg, "no log group of this stack")
}

test_refuses_no_access_log if {
	some f in access_log.deny with input as probe(null)
	contains(f.msg, "writes no access log with ApiAccessLogs on")
}

test_refuses_a_variant_without_its_probe if {
	some f in access_log.deny with input as {"stacks": [{"variant": "prod", "file": "template.yaml", "resources": {}}]}
	contains(f.msg, "cannot be resolved")
}

test_passes_the_floor if {
	count(access_log.deny) == 0 with input as probe({"Format": format, "DestinationArn": concat("", [group, ":*"])})
}
