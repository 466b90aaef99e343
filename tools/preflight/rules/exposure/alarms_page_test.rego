package preflight.rules.alarms_page_test

import data.preflight.rules.alarms_page

topic := "arn:aws:sns:eu-west-1:123456789012:preflight-alarms"

probe(alarm, params) := {"stacks": [{"variant": "dev", "file": "template.yaml", "resources": {}, "absent": {}}, {
	"variant": "dev", "probe": true, "file": "template.yaml", "params": params, "absent": {},
	"resources": {"FailuresAlarm": {"type": "AWS::CloudWatch::Alarm", "line": 50, "raw": {"ActionsEnabled": {"Ref": "PageOnFailures"}}, "properties": alarm}},
}]}

test_refuses_an_alarm_that_pages_nobody if {
	some f in alarms_page.deny with input as probe({}, {"AlarmTopicArn": topic})
	f.line == 50
	f.msg == "FailuresAlarm [dev]: does not send to AlarmTopicArn when one is given (AlarmActions unset): the alarm pages nobody"
}

test_refuses_actions_off if {
	some f in alarms_page.deny with input as probe({"ActionsEnabled": "false", "AlarmActions": [topic]}, {"AlarmTopicArn": topic, "PageOnFailures": "false"})
	f.msg == "FailuresAlarm [dev]: ActionsEnabled is false (PageOnFailures=false in dev's parameters): the alarm changes state and tells nobody"
}

test_refuses_an_alarm_not_created if {
	some f in alarms_page.deny with input as {"stacks": [{"variant": "prod", "file": "template.yaml", "resources": {}, "absent": {"FailuresAlarm": {"type": "AWS::CloudWatch::Alarm", "condition": "IsDev", "line": 50}}}]}
	contains(f.msg, "is not created in this environment (its condition IsDev is false)")
}

test_refuses_no_topic_parameter if {
	some f in alarms_page.deny with input as probe({}, {})
	contains(f.msg, "Parameters [dev]: has no AlarmTopicArn")
}

test_passes_an_alarm_that_pages if {
	count(alarms_page.deny) == 0 with input as probe({"AlarmActions": [topic]}, {"AlarmTopicArn": topic})
}
