# METADATA
# title: Production shifts traffic to a new version gradually
# related_resources:
#   - ref: https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/automating-updates-to-serverless-apps.html
# custom:
#   id: PS-REL-001
#   danger: a function the prod API invokes that CodeDeploy shifts all at once (DeploymentPreference Type AllAtOnce), or without a deployment preference and alias at all, sends every client to a new version before any alarm can roll it back.
#   fix: keep prod's DeploymentType a canary or linear configuration (samconfig.toml), and every function the API invokes on AutoPublishAlias with a DeploymentPreference
package preflight.rules.traffic_at_once

import data.preflight.lib.stacks

# served are the functions (by their id in template.yaml) that API Gateway
# invokes: the targets of its Lambda permissions, an alias or a function.
served(s) := {target.source |
	some p in s.resources
	p.type == "AWS::Lambda::Permission"
	p.raw.Principal == "apigateway.amazonaws.com"
	target := s.resources[function_id(p.raw.FunctionName)]
}

function_id(name) := name.Ref if name.Ref

function_id(name) := name["Fn::GetAtt"][0] if name["Fn::GetAtt"]

# SAM names CodeDeploy's predefined configurations
# CodeDeployDefault.Lambda<Type>; AllAtOnce moves all traffic at once.
at_once(s) := {g.source: stacks.written_type(s, g.source) |
	some g in s.resources
	g.type == "AWS::CodeDeploy::DeploymentGroup"
	g.source in served(s)
	endswith(stacks.deployment_config(s, g), "AllAtOnce")
}

# A parameter (DeploymentType) that moves every function at once is one
# finding, on its declaration.
deny contains {"file": s.file, "line": input.declared[s.file].parameters[name].line, "msg": msg} if {
	some s in stacks.prod
	some name in {t.Ref | some t in at_once(s)}
	fns := sort([fn | some fn, t in at_once(s); t.Ref == name])
	msg := sprintf("%s=%s%s moves all of prod's traffic to a new version of %s at once: a bad version reaches every client before an alarm can roll it back", [name, object.get(s.params, name, "AllAtOnce"), where(s, name), concat(", ", fns)])
}

deny contains {"file": s.file, "line": stacks.prop_line(s, s.resources[fn], "DeploymentPreference"), "msg": msg} if {
	some s in stacks.prod
	some fn, t in at_once(s)
	not t.Ref
	msg := sprintf("%s: prod moves all of its traffic to a new version at once (DeploymentPreference Type AllAtOnce): a bad version reaches every client before an alarm can roll it back", [fn])
}

where(s, name) := " in prod's parameters" if {
	s.params[name]
} else := " (the parameter's default)"

deny contains {"file": s.file, "line": stacks.prop_line(s, s.resources[fn], "DeploymentPreference"), "msg": msg} if {
	some s in stacks.prod
	some fn in served(s)
	not deployed_gradually(s, fn)
	msg := sprintf("%s: the prod API invokes it with no CodeDeploy deployment (no AutoPublishAlias and DeploymentPreference): a new version takes all traffic at once, with no alarm or hook to roll it back", [fn])
}

deployed_gradually(s, fn) if {
	some g in s.resources
	g.type == "AWS::CodeDeploy::DeploymentGroup"
	g.source == fn
}
