# Helpers of the rules over API Gateway: a stack's stages with their
# logging settings, and the variables of an access log format (API Gateway
# developer guide, "Set up CloudWatch logging for REST APIs" and
# "Variables for access logging").
package preflight.lib.gateway

import data.preflight.lib.stacks

# stages are every stage of the stack: AWS::ApiGateway::Stage (what SAM
# makes of an Api), an AWS::ApiGateway::Deployment's StageDescription and
# AWS::ApiGatewayV2::Stage, as {"id", "line", "rest", "format",
# "destination", "tracing", "data_trace": [where execution logging writes
# full requests and responses]}.
stages(s) := {st |
	some id, r in s.resources
	st := stage(id, r)
}

stage(id, r) := object.union(logging(id, r, object.get(p, "AccessLogSetting", null)), {"rest": true, "tracing": object.get(p, "TracingEnabled", null), "data_trace": method_traces(p.MethodSettings)}) if {
	r.type == "AWS::ApiGateway::Stage"
	p := object.union({"MethodSettings": []}, object.get(r, "properties", {}))
}

stage(id, r) := object.union(logging(id, r, object.get(d, "AccessLogSetting", null)), {"rest": true, "tracing": object.get(d, "TracingEnabled", null), "data_trace": array.concat(method_traces(d.MethodSettings), whole)}) if {
	r.type == "AWS::ApiGateway::Deployment"
	d := object.union({"MethodSettings": []}, r.properties.StageDescription)
	whole := [w | w := "* /*"; stacks.is_true(object.get(d, "DataTraceEnabled", false))]
}

stage(id, r) := object.union(logging(id, r, object.get(p, "AccessLogSettings", null)), {"rest": false, "tracing": null, "data_trace": array.concat(default_trace, routes)}) if {
	r.type == "AWS::ApiGatewayV2::Stage"
	p := object.get(r, "properties", {})
	default_trace := [w | w := "every route"; stacks.is_true(object.get(p, ["DefaultRouteSettings", "DataTraceEnabled"], false))]
	routes := [name | some name, m in object.get(p, "RouteSettings", {}); stacks.is_true(object.get(m, "DataTraceEnabled", false))]
}

logging(id, r, setting) := {"id": id, "line": r.line, "format": format(setting), "destination": sprintf("%v", [object.get(setting, "DestinationArn", null)])} if is_object(setting)

logging(id, r, setting) := {"id": id, "line": r.line, "format": "", "destination": ""} if not is_object(setting)

format(setting) := setting.Format if is_string(setting.Format)

format(setting) := "" if not is_string(setting.Format)

method_traces(settings) := [sprintf("%v %v", [m.HttpMethod, m.ResourcePath]) |
	some m in stacks.as_list(settings)
	stacks.is_true(object.get(m, "DataTraceEnabled", false))
]

# variables are the variables of a format in any form a template may
# write them ($context.a.b, ${context.a.b}, $input.params('X'),
# $method.request.header.X, $request.header.x), those inside another's
# arguments too ($util.escapeJavaScript($input.body)): each is
# [as written, root, the rest].
variables(format) := [m |
	some i in indexof_n(format, "$")
	some m in regex.find_all_string_submatch_n(`^\$\{?([A-Za-z_]\w*)((?:\.[\w-]+|\[[^\]]*\]|\([^)]*\))*)`, substring(format, i, -1), 1)
]
