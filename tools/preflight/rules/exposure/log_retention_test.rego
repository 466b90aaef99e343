package preflight.rules.log_retention_test

import data.preflight.rules.log_retention

group(raw, days, params) := {"evidence_floor": {"retention_days": 7}, "stacks": [{"variant": "dev", "file": "template.yaml", "params": params, "resources": {"Logs": {
	"type": "AWS::Logs::LogGroup", "line": 4, "raw": {"RetentionInDays": raw}, "properties": {"RetentionInDays": days},
}}}]}

test_refuses_a_day_from_the_environments_parameters if {
	some f in log_retention.deny with input as group({"Ref": "LogRetentionDays"}, 1, {"LogRetentionDays": "1"})
	f.line == 4
	contains(f.msg, "kept 1 day (LogRetentionDays=1 in dev's parameters), below the floor of 7 days")
}

test_refuses_a_short_default if {
	some f in log_retention.deny with input as group({"Ref": "LogRetentionDays"}, 3, {})
	contains(f.msg, "kept 3 days (LogRetentionDays, whose default is 3)")
}

test_refuses_a_literal if {
	count(log_retention.deny) == 1 with input as group(5, 5, {})
}

test_passes_the_floor if {
	count(log_retention.deny) == 0 with input as group(7, 7, {})
}

test_passes_forever if {
	count(log_retention.deny) == 0 with input as {"evidence_floor": {"retention_days": 7}, "stacks": [{"file": "template.yaml", "resources": {"Logs": {"type": "AWS::Logs::LogGroup", "line": 1, "raw": {}, "properties": {}}}}]}
}
