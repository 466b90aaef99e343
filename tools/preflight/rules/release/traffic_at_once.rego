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
deny contains {"file": s.file, "line": stacks.prop_line(s, g, "DeploymentPreference"), "msg": msg} if {
	some s in stacks.prod
	some g in s.resources
	g.type == "AWS::CodeDeploy::DeploymentGroup"
	g.source in served(s)
	config := stacks.deployment_config(s, g)
	endswith(config, "AllAtOnce")
	msg := sprintf("%s: prod moves all of its traffic to a new version at once (%s%s): a bad version reaches every client before an alarm can roll it back", [g.source, config, param(s, g)])
}

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

param(s, g) := sprintf("; %s=%s in prod's parameters", [t.Ref, s.params[t.Ref]]) if {
	t := stacks.written_type(s, g.source)
	s.params[t.Ref]
} else := ""
