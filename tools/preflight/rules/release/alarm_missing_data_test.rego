package preflight.rules.alarm_missing_data_test

import data.preflight.rules.alarm_missing_data

alarm(props) := {"templates": {}, "stacks": [{"file": "template.yaml", "resources": {"NoTraffic": {
	"type": "AWS::CloudWatch::Alarm", "line": 3, "source": "NoTraffic", "properties": object.union({"MetricName": "Count", "Threshold": 1, "ComparisonOperator": "LessThanThreshold"}, props),
}}}]}

test_refuses_not_breaching if {
	some f in alarm_missing_data.deny with input as alarm({"TreatMissingData": "notBreaching"})
	f.line == 3
	contains(f.msg, "NoTraffic: fires when Count falls LessThanThreshold 1 but TreatMissingData is notBreaching")
}

test_refuses_the_default if {
	some f in alarm_missing_data.deny with input as alarm({})
	contains(f.msg, "TreatMissingData is missing")
}

test_passes_breaching if {
	count(alarm_missing_data.deny) == 0 with input as alarm({"TreatMissingData": "breaching"})
}

test_passes_a_filled_expression if {
	count(alarm_missing_data.deny) == 0 with input as alarm({"Metrics": [{"Id": "e", "Expression": "FILL(m, 0)"}]})
}

test_passes_a_rising_metric if {
	count(alarm_missing_data.deny) == 0 with input as alarm({"ComparisonOperator": "GreaterThanThreshold", "TreatMissingData": "notBreaching"})
}
