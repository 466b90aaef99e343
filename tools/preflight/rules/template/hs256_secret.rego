# METADATA
# title: No HS256 secret in a deployed stack
# related_resources:
#   - ref: https://datatracker.ietf.org/doc/html/rfc8725#section-3.5
# custom:
#   id: PS-TPL-001
#   danger: an HS256 secret in a deployed function's environment (a literal, a parameter, an Fn::If, a dynamic reference) lets anyone who holds it mint tokens the authorizer accepts.
#   fix: declare AUTH_HS256_SECRET as '' (sam local's env files set it) and keep any secret out of template.yaml and its parameters
package preflight.rules.hs256_secret

# internal/auth reads the variable as the HS256 key, and an empty one as
# unset; SAM CLI hands a function only the variables the template
# declares, so the template declares it empty and sam local's env files
# fill it. Anything else reaches the deployed function with the value the
# deployer gives, whatever it resolves to: the rule reads the value as
# written.
variable := "AUTH_HS256_SECRET"

deny contains {"file": s.file, "line": r.line, "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Lambda::Function"
	walk(object.get(r, ["raw", "Environment"], {}), [path, value])
	path[count(path) - 1] == variable
	value != ""
	msg := sprintf("%s: Environment.Variables.%s is %s: the deployed function would accept HS256 tokens signed with it, which anyone who holds it can mint; a deployed stack accepts only JWKS-signed tokens (docs/security.md)", [id, variable, describe(value)])
}

describe(v) := "a dynamic reference" if {
	is_string(v)
	startswith(v, "{{resolve:")
} else := sprintf("a literal of %d characters", [count(v)]) if {
	is_string(v)
} else := json.marshal(v)
