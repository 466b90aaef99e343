# METADATA
# title: A rollback alarm can fire before the release ends
# related_resources:
#   - ref: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarm-evaluation.html
#   - ref: https://docs.aws.amazon.com/codedeploy/latest/userguide/deployment-configurations.html
# custom:
#   id: PS-REL-004
#   danger: a rollback alarm that needs more time to go into ALARM (its Period times DatapointsToAlarm) than prod's canary or linear release lasts fires only after CodeDeploy has moved all traffic and finished, when nothing rolls back any more.
#   fix: keep each rollback alarm's Period times DatapointsToAlarm within the release's wait (5 minutes for Canary10Percent5Minutes)
package preflight.rules.rollback_alarm_window

import data.preflight.lib.stacks

# How long CodeDeploy's predefined Lambda configurations hold before all
# traffic is moved: a canary waits its minutes once; a linear one moves 10
# % each interval, ten times.
release_seconds(name) := to_number(m[2]) * 60 if {
	m := regex.find_all_string_submatch_n(`Lambda(Canary)[0-9]+Percent([0-9]+)Minutes$`, name, 1)[0]
} else := (to_number(m[2]) * 60) * 10 if {
	m := regex.find_all_string_submatch_n(`Lambda(Linear)10PercentEvery([0-9]+)Minutes?$`, name, 1)[0]
}

# An alarm goes into ALARM once DatapointsToAlarm periods breach (all of
# EvaluationPeriods without it); a metric math alarm's period is its
# metrics'.
time_to_alarm(a) := period(a) * stacks.number(object.get(a, "DatapointsToAlarm", a.EvaluationPeriods))

period(a) := stacks.number(a.Period) if {
	a.Period
} else := max([stacks.number(m.MetricStat.Period) | some m in a.Metrics; m.MetricStat])

deny contains {"file": s.file, "line": stacks.prop_line(s, alarm, "Period"), "msg": msg} if {
	some s in stacks.prod
	some g in s.resources
	g.type == "AWS::CodeDeploy::DeploymentGroup"
	config := stacks.deployment_config(s, g)
	wait := release_seconds(config)
	some ref in g.raw.AlarmConfiguration.Alarms
	id := ref.Name.Ref
	alarm := s.resources[id]
	needs := time_to_alarm(alarm.properties)
	needs > wait
	msg := sprintf("%s: rolls back %s's prod release, but needs %v s of breaching data to go into ALARM and %s moves all traffic after %v s: the release is over before the alarm can stop it", [id, g.source, needs, config, wait])
}
