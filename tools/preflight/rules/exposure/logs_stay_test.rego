package preflight.rules.logs_stay_test

import data.preflight.rules.logs_stay

stack(type, props) := {"stacks": [{"file": "template.yaml", "account": "123456789012", "resources": {"X": {"type": type, "line": 9, "properties": props}}}]}

test_refuses_a_filter_to_another_account if {
	some f in logs_stay.deny with input as stack("AWS::Logs::SubscriptionFilter", {"DestinationArn": "arn:aws:logs:eu-west-1:210987654321:destination:siem"})
	f.line == 9
	contains(f.msg, "to account 210987654321")
}

test_refuses_a_destination_that_is_no_arn if {
	some f in logs_stay.deny with input as stack("AWS::Logs::SubscriptionFilter", {"DestinationArn": "siem"})
	contains(f.msg, "to another account")
}

test_refuses_an_account_policy_to_another_account if {
	count(logs_stay.deny) == 1 with input as stack("AWS::Logs::AccountPolicy", {
		"PolicyType": "SUBSCRIPTION_FILTER_POLICY",
		"PolicyDocument": `{"DestinationArn": "arn:aws:firehose:eu-west-1:210987654321:deliverystream/x", "FilterPattern": ""}`,
	})
}

test_passes_a_stream_of_this_account if {
	count(logs_stay.deny) == 0 with input as stack("AWS::Logs::SubscriptionFilter", {"DestinationArn": "arn:aws:kinesis:eu-west-1:123456789012:stream/audit"})
}

test_passes_another_account_policy if {
	count(logs_stay.deny) == 0 with input as stack("AWS::Logs::AccountPolicy", {"PolicyType": "DATA_PROTECTION_POLICY", "PolicyDocument": "{}"})
}
