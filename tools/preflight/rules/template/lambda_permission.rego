# METADATA
# title: Lambda permissions are API Gateway's, for this API's routes
# related_resources:
#   - ref: https://docs.aws.amazon.com/lambda/latest/dg/access-control-resource-based.html
# custom:
#   id: PS-TPL-002
#   danger: a Lambda permission for another principal, service, API or route lets someone invoke a function past the gateway's authorizer.
#   fix: remove it; API Gateway's permissions come from SAM's Api events and Auth.Authorizers, each for one route or this API's authorizers
package preflight.rules.lambda_permission

import data.preflight.lib.stacks

# A function's resource-based policy is who may invoke it besides its own
# account's IAM principals, and a service principal without a source lets
# any resource of that service invoke it, in any account (Lambda API
# reference, AddPermission). The template means two kinds, and no other:
# API Gateway invoking a route's function, SourceArn
# arn:<partition>:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<path>
# (API Gateway developer guide, "API Gateway Amazon Resource Name (ARN)
# reference"), api-id the Ref of a RestApi of this stack, stage * or one of
# its stages, METHOD/path a route whose integration invokes that function;
# and API Gateway invoking a Lambda authorizer of that API,
# …:<api-id>/authorizers/<id or *> (what SAM makes of Auth.Authorizers).
# The PreTraffic hook needs none: CodeDeploy invokes it with its role.
deny := stacks.told(found)

found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": why} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Lambda::Permission"
	why := refused(s, r)
}

refused(s, r) := sprintf("cannot be resolved: %s", [r.error]) if {
	r.error != ""
} else := sprintf("grants on %v, which is no function of this stack", [r.properties.FunctionName]) if {
	not functions(s)[function_name(r.properties.FunctionName)]
} else := permission_why(s, r.properties, functions(s)[function_name(r.properties.FunctionName)])

# functions are the logical ids of the stack's functions by name (their
# Ref); a FunctionName names one by its name, the name with a qualifier,
# or a full or partial ARN.
functions(s) := {f.ref: id |
	some id, f in s.resources
	f.type == "AWS::Lambda::Function"
	f.ref != null
}

function_name(v) := split(after(split(after(sprintf("%v", [v]), "/functions/"), "/invocations")[0], ":function:"), ":")[0]

after(s, sep) := substring(s, indexof(s, sep) + count(sep), -1) if contains(s, sep)

after(s, sep) := s if not contains(s, sep)

permission_why(s, p, fn) := sprintf("grants %v on %s: the template means lambda:InvokeFunction for API Gateway only", [object.get(p, "Action", null), fn]) if {
	lower(sprintf("%v", [object.get(p, "Action", "")])) != "lambda:invokefunction"
} else := sprintf("grants %s's function URL (FunctionUrlAuthType %v): the template means no function URL", [fn, p.FunctionUrlAuthType]) if {
	object.get(p, "FunctionUrlAuthType", null) != null
} else := sprintf("lets %v invoke %s: the template means API Gateway (apigateway.amazonaws.com) alone, for its own routes and authorizer; CodeDeploy invokes the hook with its role, not by a permission", [object.get(p, "Principal", null), fn]) if {
	object.get(p, "Principal", null) != "apigateway.amazonaws.com"
} else := sprintf("lets API Gateway invoke %s with no SourceArn: any API of any account may", [fn]) if {
	object.get(p, "SourceArn", "") == ""
} else := sprintf("lets API Gateway invoke %s from %v: %s", [fn, p.SourceArn, why]) if {
	why := source_why(s, sprintf("%v", [p.SourceArn]), fn)
	why != ""
}

# source_why says why an execute-api SourceArn is not one of this stack's
# routes (or authorizers) for the function fn; "" when it is.
source_why(s, src, fn) := "it is not an execute-api ARN" if {
	not arn(src)
} else := sprintf("it names partition %q, region %q, account %q, not this stack's", [a.partition, a.region, a.account]) if {
	a := arn(src)
	[a.partition, a.region, a.account] != [s.partition, s.region, s.account]
} else := sprintf("%q is no RestApi of this stack (its Ref), so any API of the account matches", [arn(src).api]) if {
	count(candidates(s, src)) == 0
} else := authorizer_why(s, src, fn) if {
	startswith(arn(src).rest, "authorizers/")
} else := "it names no stage, method and path" if {
	not contains(arn(src).rest, "/")
} else := "" if {
	some rt in routes(s, src)
	rt.function == fn
} else := sprintf("the route %s invokes another function", [min({rt.name | some rt in routes(s, src)})]) if {
	count(routes(s, src)) > 0
} else := "it names no stage and route the template declares (a stage of the API or *, then METHOD/path)"

arn(src) := {"partition": m[1], "region": m[2], "account": m[3], "api": m[4], "rest": m[5]} if {
	some m in regex.find_all_string_submatch_n(`^arn:([^:]*):execute-api:([^:]*):([^:]*):([^/]*)/?(.*)$`, src, 1)
}

candidates(s, src) := [api | some api in s.apis; api.ref == arn(src).api]

authorizer_why(s, src, fn) := "it names no authorizer" if {
	name := substring(arn(src).rest, count("authorizers/"), -1)
	some bad in [name == "", contains(name, "/")]
	bad
} else := "" if {
	some api in candidates(s, src)
	fn in api.authorizers
} else := "the function is no Lambda authorizer of that API"

# routes are the routes of the APIs the SourceArn names whose stage
# (* or one of the API's) and METHOD/path it matches.
routes(s, src) := {rt |
	[stage, route] := cut(arn(src).rest)
	some api in candidates(s, src)
	some ok in [stage == "*", stage in api.stages]
	ok
	some rt in api.routes
	route_arn(rt) == route
}

cut(s) := [substring(s, 0, i), substring(s, i + 1, -1)] if {
	i := indexof(s, "/")
	i >= 0
}

# route_arn is the route's part of an execute-api ARN: METHOD/path, ANY
# as *, each {parameter} as *.
route_arn(rt) := concat("", [method(rt.method), concat("/", [p | some seg in split(rt.path, "/"); p := segment(seg)])])

method("ANY") := "*"

method(m) := m if m != "ANY"

segment(seg) := "*" if {
	startswith(seg, "{")
	endswith(seg, "}")
} else := seg
