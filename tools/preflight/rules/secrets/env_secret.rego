# METADATA
# title: No secret in a function's environment
# related_resources:
#   - ref: https://docs.aws.amazon.com/lambda/latest/dg/configuration-envvars.html
#   - ref: https://docs.aws.amazon.com/secretsmanager/latest/userguide/retrieving-secrets_lambda.html
# custom:
#   id: PS-SEC-003
#   danger: a function environment variable that holds a secret (a client secret GetAtt, a secret parameter, a Secrets Manager value resolved at deploy, a literal key) is shown in plain text to everyone who may read the function's configuration (lambda:GetFunctionConfiguration, the console, the template) and never rotates.
#   fix: pass the secret's name or ARN and read the value at run time (Secrets Manager, the Parameters and Secrets extension, describe-user-pool-client as the PreTraffic hook does)
package preflight.rules.env_secret

import data.preflight.lib.secrets
import data.preflight.lib.stacks

# AUTH_HS256_SECRET is PS-TPL-001's.
deny contains {"file": s.file, "line": stacks.prop_line(s, r, "Environment"), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Lambda::Function"
	some name, value in object.get(r.raw, ["Environment", "Variables"], {})
	name != "AUTH_HS256_SECRET"
	what := held(s.file, name, value)
	msg := sprintf("%s: Environment.Variables.%s holds %s: everyone who may read the function's configuration reads it in plain text", [r.source, name, what])
}

held(file, name, value) := concat(", ", sort(carried)) if {
	carried := secrets.carried(file, value)
	count(carried) > 0
} else := sprintf("a literal of %d characters in a variable named as a secret", [count(value)]) if {
	is_string(value)
	value != ""
	not startswith(value, "{{resolve:")
	secrets.secret_name(name)
}
