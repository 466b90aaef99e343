package preflight.rules.rollback_alarm_window_test

import data.preflight.rules.rollback_alarm_window

stack(config, alarm) := {"templates": {"template.yaml": {"resources": [{"id": "A", "line": 30, "properties": {"Period": 33}}]}}, "stacks": [{"variant": "prod", "file": "template.yaml", "resources": {
	"G": {"type": "AWS::CodeDeploy::DeploymentGroup", "line": 10, "source": "Fn", "properties": {"DeploymentConfigName": config}, "raw": {"AlarmConfiguration": {"Alarms": [{"Name": {"Ref": "A"}}]}}},
	"A": {"type": "AWS::CloudWatch::Alarm", "line": 30, "source": "A", "properties": alarm},
}}]}

test_refuses_an_hour_long_period if {
	some f in rollback_alarm_window.deny with input as stack("CodeDeployDefault.LambdaCanary10Percent5Minutes", {"Period": 3600, "EvaluationPeriods": 1})
	f.line == 33
	contains(f.msg, "needs 3600 s of breaching data")
	contains(f.msg, "after 300 s")
}

test_refuses_a_slow_metric_math_alarm if {
	count(rollback_alarm_window.deny) == 1 with input as stack("CodeDeployDefault.LambdaLinear10PercentEvery1Minute", {"EvaluationPeriods": 3, "Metrics": [{"Id": "e", "Expression": "a"}, {"Id": "a", "MetricStat": {"Period": 300}}]})
}

test_passes_a_minute if {
	count(rollback_alarm_window.deny) == 0 with input as stack("CodeDeployDefault.LambdaCanary10Percent5Minutes", {"Period": 60, "EvaluationPeriods": 5, "DatapointsToAlarm": 2})
}

test_refuses_by_the_environments_type if {
	count(rollback_alarm_window.deny) == 1 with input as object.union(stack("CodeDeployDefault.LambdaLinear10PercentEvery1Minute", {"Period": 300, "EvaluationPeriods": 2}), {
		"declared": {"template.yaml": {
			"parameters": {"DeploymentType": {"line": 1, "value": {"Default": "Linear10PercentEvery1Minute"}}},
			"resources": {"Fn": {"line": 10, "value": {"Properties": {"DeploymentPreference": {"Type": {"Ref": "DeploymentType"}}}}}},
		}},
		"stacks": [object.union(stack("x", {"Period": 300, "EvaluationPeriods": 2}).stacks[0], {"params": {"DeploymentType": "Canary10Percent5Minutes"}})],
	})
}
