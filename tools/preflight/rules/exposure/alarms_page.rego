# METADATA
# title: Every alarm exists, acts and pages
# related_resources:
#   - ref: https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html
# custom:
#   id: PS-EXP-007
#   danger: an alarm not created in an environment, with its actions off or not sent to the alarm topic watches nothing or tells nobody, and an incident goes unseen.
#   fix: create every alarm in every environment, leave ActionsEnabled unset (true), and keep AlarmActions on AlarmTopicArn
package preflight.rules.alarms_page

import data.preflight.lib.stacks

# Each variant is also read as its probe, the stack with an alarm topic
# of its account (AlarmTopicArn), where it has none.
deny := stacks.told(found)

alarm_types := {"AWS::CloudWatch::Alarm", "AWS::CloudWatch::CompositeAlarm"}

found contains {"variant": s.variant, "file": s.file, "line": 0, "id": "Parameters", "msg": "has no AlarmTopicArn: no alarm can reach anyone", "fix": "keep the parameter AlarmTopicArn and every alarm's AlarmActions on it"} if {
	some s in input.stacks
	s.probe
	not s.params.AlarmTopicArn
}

found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg, "fix": "create every alarm in every environment"} if {
	some s in input.stacks
	some id, r in s.absent
	r.type in alarm_types
	msg := sprintf("is not created in this environment (its condition %v is false): nothing watches what it watches", [r.condition])
}

# ActionsEnabled defaults to true (PutMetricAlarm).
found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg, "fix": "leave ActionsEnabled unset (true) in every environment"} if {
	some s in input.stacks
	some id, r in s.resources
	r.type in alarm_types
	v := r.properties.ActionsEnabled
	not stacks.is_true(v)
	msg := sprintf("ActionsEnabled is false%s: the alarm changes state and tells nobody", [stacks.source(s, object.get(r.raw, "ActionsEnabled", null), v)])
}

found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg, "fix": "AlarmActions: !If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]"} if {
	some s in input.stacks
	topic := s.params.AlarmTopicArn
	topic != ""
	some id, r in s.resources
	r.type in alarm_types
	actions := object.get(r.properties, "AlarmActions", null)
	not topic in stacks.as_list(actions)
	msg := sprintf("does not send to AlarmTopicArn when one is given (AlarmActions %s): the alarm pages nobody", [said(actions)])
}

said(null) := "unset"

said(actions) := stacks.short(actions, 80) if actions != null
