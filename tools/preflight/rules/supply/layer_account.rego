# METADATA
# title: Lambda layers are the stack's own
# related_resources:
#   - ref: https://docs.aws.amazon.com/lambda/latest/dg/adding-layers.html
# custom:
#   id: PS-SUP-018
#   danger: a layer from another account (an ARN naming another account, or a parameter the deployer fills) adds code that account built, and can stop sharing, to every function that lists it, beside the handler and its credentials, unseen by the repository's review.
#   fix: "build what the layer gives into the function, or publish the layer from this template (AWS::Serverless::LayerVersion) and list it with !Ref"
package preflight.rules.layer_account

tpl := input.supply.template

layer_types := {"AWS::Serverless::LayerVersion", "AWS::Lambda::LayerVersion"}

own_accounts := {s.account | some s in input.stacks} | {"${AWS::AccountId}"}

# own: a layer this template publishes, or an ARN in the stack's account.
own(l) if {
	l.tag in {"!Ref", "!GetAtt"}
	id := split(l.value, ".")[0]
	some r in input.templates["template.yaml"].resources
	r.id == id
	r.type in layer_types
}

own(l) if {
	l.tag in {"", "!Sub"}
	some m in regex.find_all_string_submatch_n(`^arn:[^:]+:lambda:(\$\{AWS::Region\}|[^:]*):(\$\{AWS::AccountId\}|\d{12}):layer:`, l.value, 1)
	m[2] in own_accounts
}

deny contains {"file": tpl.file, "line": l.line, "msg": msg} if {
	some l in tpl.layers
	not own(l)
	msg := sprintf("%s lists the layer %s: code from outside this stack's account and review runs in its functions", [l.resource, trim_space(concat(" ", [l.tag, l.value]))])
}
