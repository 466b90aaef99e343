package preflight.rules.log_secrets_test

import data.preflight.rules.log_secrets

stage(props) := {"stacks": [{"variant": "dev", "file": "template.yaml", "resources": {"PlantsApiv1Stage": {"type": "AWS::ApiGateway::Stage", "line": 20, "properties": props}}}]}

logged(format) := d if {
	d := log_secrets.deny with input as stage({"AccessLogSetting": {"Format": format, "DestinationArn": "arn"}})
}

# A variable is refused by what it carries, however it is spelt.
test_refuses_every_spelling_of_a_secret if {
	every format in [
		`{"key":"$context.identity.apiKey"}`,
		`${context.identity.apiKey}`,
		`$context.Identity.ApiKey`,
		`"$input.params('Authorization')"`,
		`$input.params().header.get('authorization')`,
		`$util.escapeJavaScript($input.body)`,
		`$method.request.header.Authorization`,
		`$request.header.authorization`,
		`$context.requestOverride.header.Authorization`,
		`$context.authorizer.claims.email`,
		`$context.authorizer.token`,
		`$context.authorizer.Sub`,
	] {
		count(logged(format)) == 1
	}
}

test_refuses_the_authorization_header if {
	some f in logged(`{"principal":"$context.authorizer.principalId","authorization":"$input.params('Authorization')"}`)
	f.line == 20
	f.msg == "PlantsApiv1Stage [dev]: the access log format names $input.params('Authorization'), the request's own headers, query or body, the bearer token among them: it would reach the access log"
}

test_refuses_a_data_trace if {
	some f in log_secrets.deny with input as stage({"MethodSettings": [{"HttpMethod": "*", "ResourcePath": "/*", "DataTraceEnabled": "true"}]})
	contains(f.msg, "turns on full request and response logs (DataTraceEnabled, * /*)")
}

test_refuses_a_waf_log_unredacted if {
	some f in log_secrets.deny with input as {"stacks": [{"variant": "prod", "file": "template.yaml", "resources": {"WebAclLogging": {"type": "AWS::WAFv2::LoggingConfiguration", "line": 4, "properties": {"RedactedFields": [{"SingleHeader": {"Name": "x-api-key"}}]}}}}]}
	contains(f.msg, "without redacting the Authorization header")
}

test_passes_the_gateways_own_facts if {
	every format in [
		`$context.authorizer.principalId $context.authorizer.sub $context.authorizer.latency $context.authorizer.integrationStatus`,
		`$context.identity.sourceIp $context.identity.userAgent $context.integration.requestId $context.error.responseType $stageVariables.alias`,
	] {
		count(logged(format)) == 0
	}
}

test_passes_a_waf_log_redacted if {
	count(log_secrets.deny) == 0 with input as {"stacks": [{"variant": "prod", "file": "template.yaml", "resources": {"WebAclLogging": {"type": "AWS::WAFv2::LoggingConfiguration", "line": 4, "properties": {"RedactedFields": [{"SingleHeader": {"Name": "Authorization"}}]}}}}]}
}
