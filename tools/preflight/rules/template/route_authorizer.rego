# METADATA
# title: Every route has the authorizer
# related_resources:
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-use-lambda-authorizer.html
# custom:
#   id: PS-TPL-003
#   danger: a route of the stack's REST APIs without a Lambda authorizer of the stack (Authorizer NONE, AuthorizationType NONE or IAM, an authorizer of elsewhere) is served to anyone, and the functions trust the gateway's principal.
#   fix: "leave the route to the API's DefaultAuthorizer (no `Auth: {Authorizer: NONE}`), or allow it in tools/preflight/allowlist.yaml (kind public-route, what \"METHOD /path\", a reason)"
package preflight.rules.route_authorizer

# input.stacks[_].apis are the routes as tools/preflight reads them from
# the API's OpenAPI Body (what SAM makes of the Api events) and from any
# AWS::ApiGateway::Method; unread_apis what it cannot read, which is
# refused too: a route the rule cannot see is not known to be guarded.
deny contains {"file": s.file, "line": line(s, rt.resource), "msg": msg, "fix": fix} if {
	some s in input.stacks
	some api in s.apis
	some rt in api.routes
	not rt.authorized
	not public(rt.name)
	msg := sprintf("%s %s: has no authorizer (%s): anyone reaches %s without a token", [api.id, rt.name, rt.instead, reached(rt)])
	fix := sprintf("leave the route to the API's DefaultAuthorizer (no `Auth: {Authorizer: NONE}`), or allow it in tools/preflight/allowlist.yaml (kind public-route, what %q, a reason)", [rt.name])
}

deny contains {"file": s.file, "line": line(s, u.id), "msg": sprintf("%s: %s", [u.id, u.msg]), "fix": object.get(u, "fix", "")} if {
	some s in input.stacks
	some u in s.unread_apis
}

public(name) if {
	some e in input.allowlist
	e.kind == "public-route"
	e.what == name
}

reached(rt) := rt.function if rt.function != ""

reached(rt) := "its integration" if rt.function == ""

line(s, id) := s.resources[id].line

line(s, id) := 0 if not s.resources[id]
