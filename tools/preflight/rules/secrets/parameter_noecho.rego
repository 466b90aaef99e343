# METADATA
# title: A parameter that holds a secret is NoEcho
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/parameters-section-structure.html
# custom:
#   id: PS-SEC-002
#   danger: a parameter whose name says it holds a secret (a password, a token, a key) without NoEcho true shows its value in plain text to everyone who may describe the stack, its change sets or its events.
#   fix: set NoEcho true on it, without a Default; better, keep the secret in Secrets Manager and pass its name
package preflight.rules.parameter_noecho

import data.preflight.lib.secrets

deny contains {"file": file, "line": p.line, "msg": msg} if {
	some file, d in input.declared
	some name, p in d.parameters
	secrets.secret_name(name)
	lower(sprintf("%v", [object.get(p.value, "NoEcho", false)])) != "true"
	msg := sprintf("parameter %s is named as a secret but has no NoEcho: true: describe-stacks shows its value to everyone who may read the stack", [name])
}
