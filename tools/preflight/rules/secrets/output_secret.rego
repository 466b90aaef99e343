# METADATA
# title: No secret in a stack's Outputs or exports
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/outputs-section-structure.html
# custom:
#   id: PS-SEC-001
#   danger: an Output or export that carries a secret (an app client's ClientSecret, a secret parameter, a dynamic reference to one) hands it in plain text to everyone who may describe the stack, import the export or read the deploy logs; CloudFormation does not redact Outputs.
#   fix: output the secret's name or ARN and let the reader fetch it where its own permission is checked (Secrets Manager, describe-user-pool-client)
package preflight.rules.output_secret

import data.preflight.lib.secrets

deny contains {"file": file, "line": o.line, "msg": msg} if {
	some file, d in input.declared
	some name, o in d.outputs
	carried := secrets.carried(file, {"Value": object.get(o.value, "Value", null), "Export": object.get(o.value, "Export", null)})
	count(carried) > 0
	msg := sprintf("output %s carries %s: everyone who may describe the stack (or import its export) reads it in plain text", [name, concat(", ", sort(carried))])
}
