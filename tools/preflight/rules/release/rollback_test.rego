package preflight.rules.rollback_test

import data.preflight.rules.rollback

stack(group, policy) := {"templates": {"template.yaml": {"resources": [{"id": "Fn", "line": 10, "properties": {"DeploymentPreference": 14}}]}}, "stacks": [{"variant": "prod", "file": "template.yaml", "resources": {
	"FnAliaslive": {"type": "AWS::Lambda::Alias", "line": 10, "source": "Fn", "update_policy": policy},
	"FnDeploymentGroup": {"type": "AWS::CodeDeploy::DeploymentGroup", "line": 10, "source": "Fn", "properties": group},
}}]}

guarded := {
	"AlarmConfiguration": {"Enabled": true, "Alarms": [{"Name": "a"}]},
	"AutoRollbackConfiguration": {"Enabled": true, "Events": ["DEPLOYMENT_FAILURE", "DEPLOYMENT_STOP_ON_ALARM"]},
}

hook := {"CodeDeployLambdaAliasUpdate": {"BeforeAllowTrafficHook": {"Ref": "PreTrafficFunctionAliaslive"}}}

test_refuses_no_alarms if {
	some f in rollback.deny with input as stack(object.remove(guarded, ["AlarmConfiguration"]), hook)
	f.line == 14
	contains(f.msg, "Fn: prod's CodeDeploy deployment has no alarm to stop it (DeploymentPreference Alarms): a failing version")
}

test_refuses_no_hook_and_no_rollback_in_one_line if {
	fs := rollback.deny with input as stack(object.union(guarded, {"AutoRollbackConfiguration": {"Enabled": false}}), {"CodeDeployLambdaAliasUpdate": {}})
	count(fs) == 1
	some f in fs
	contains(f.msg, "no PreTraffic hook")
	contains(f.msg, "no rollback when an alarm stops it")
}

test_passes_alarms_rollback_and_hook if {
	count(rollback.deny) == 0 with input as stack(guarded, hook)
}
