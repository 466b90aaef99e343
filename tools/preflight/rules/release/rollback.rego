# METADATA
# title: A production release can roll itself back
# related_resources:
#   - ref: https://docs.aws.amazon.com/serverless-application-model/latest/developerguide/sam-property-function-deploymentpreference.html
#   - ref: https://docs.aws.amazon.com/codedeploy/latest/userguide/deployments-rollback-and-redeploy.html
# custom:
#   id: PS-REL-002
#   danger: a prod deployment with no alarm to stop it, no automatic rollback on that alarm, or no PreTraffic hook to prove the version first, finishes shifting traffic to a failing version and leaves it serving.
#   fix: keep each DeploymentPreference's Alarms (the rollback alarms) and Hooks PreTraffic, and CodeDeploy's AutoRollbackConfiguration with DEPLOYMENT_STOP_ON_ALARM
package preflight.rules.rollback

import data.preflight.lib.stacks

deny contains {"file": s.file, "line": stacks.prop_line(s, g, "DeploymentPreference"), "msg": msg} if {
	some s in stacks.prod
	some g in s.resources
	g.type == "AWS::CodeDeploy::DeploymentGroup"
	lacks := lacking(s, g)
	count(lacks) > 0
	msg := sprintf("%s: prod's CodeDeploy deployment has %s: a failing version keeps the traffic it was given", [g.source, concat(" and ", sort(lacks))])
}

lacking(s, g) := ({l |
	not alarmed(object.get(g.properties, "AlarmConfiguration", {}))
	l := "no alarm to stop it (DeploymentPreference Alarms)"
} | {l |
	not rolls_back(object.get(g.properties, "AutoRollbackConfiguration", {}))
	l := "no rollback when an alarm stops it (AutoRollbackConfiguration DEPLOYMENT_STOP_ON_ALARM)"
}) | {l |
	not hooked(s, g.source)
	l := "no PreTraffic hook to prove a version before it takes traffic (DeploymentPreference Hooks)"
}

alarmed(c) if {
	object.get(c, "Enabled", true) == true
	count(object.get(c, "Alarms", [])) > 0
}

rolls_back(c) if {
	object.get(c, "Enabled", false) == true
	"DEPLOYMENT_STOP_ON_ALARM" in object.get(c, "Events", [])
}

# SAM puts the hook on the alias's UpdatePolicy.
hooked(s, fn) if {
	some a in s.resources
	a.type == "AWS::Lambda::Alias"
	a.source == fn
	a.update_policy.CodeDeployLambdaAliasUpdate.BeforeAllowTrafficHook
}
