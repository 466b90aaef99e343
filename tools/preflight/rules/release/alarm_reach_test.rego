package preflight.rules.alarm_reach_test

import data.preflight.rules.alarm_reach

alarm(props) := {"templates": {"template.yaml": {"resources": [{"id": "A", "line": 3, "properties": {"Statistic": 7, "Threshold": 9}}]}}, "stacks": [{"file": "template.yaml", "resources": {"A": {
	"type": "AWS::CloudWatch::Alarm", "line": 3, "source": "A", "properties": object.union({"Period": 60, "ComparisonOperator": "GreaterThanOrEqualToThreshold"}, props),
}}}]}

test_refuses_an_error_rate_above_one if {
	some f in alarm_reach.deny with input as alarm({"Namespace": "AWS/ApiGateway", "MetricName": "5XXError", "Statistic": "Average", "Threshold": 5})
	f.line == 7
	contains(f.msg, "5XXError's Average is a rate between 0 and 1")
}

test_refuses_a_count_beyond_the_quotas if {
	some f in alarm_reach.deny with input as alarm({"Namespace": "AWS/Lambda", "MetricName": "Errors", "Statistic": "Sum", "Threshold": 1e9})
	f.line == 9
	contains(f.msg, "cannot pass 60000000")
}

test_refuses_a_percentage_above_100 if {
	count(alarm_reach.deny) == 1 with input as alarm({"Namespace": "X", "MetricName": "Share", "Unit": "Percent", "Statistic": "Average", "Threshold": "101"})
}

test_refuses_below_zero if {
	count(alarm_reach.deny) == 1 with input as alarm({"Namespace": "AWS/ApiGateway", "MetricName": "Count", "Statistic": "Sum", "Threshold": 0, "ComparisonOperator": "LessThanThreshold"})
}

test_passes_a_count if {
	count(alarm_reach.deny) == 0 with input as alarm({"Namespace": "AWS/ApiGateway", "MetricName": "5XXError", "Statistic": "Sum", "Threshold": 5})
}

test_passes_a_rate if {
	count(alarm_reach.deny) == 0 with input as alarm({"Namespace": "AWS/ApiGateway", "MetricName": "5XXError", "Statistic": "Average", "Threshold": 0.05})
}
