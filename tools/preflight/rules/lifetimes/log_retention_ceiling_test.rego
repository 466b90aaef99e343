package preflight.rules.log_retention_ceiling_test

import data.preflight.rules.log_retention_ceiling

group(raw, props, params) := {"evidence_floor": {"retention_max_days": 365}, "templates": {}, "stacks": [{"variant": "prod", "file": "template.yaml", "params": params, "resources": {"Logs": {
	"type": "AWS::Logs::LogGroup", "line": 4, "source": "Logs", "raw": raw, "properties": props,
}}}]}

test_refuses_ten_years if {
	some f in log_retention_ceiling.deny with input as group({"RetentionInDays": {"Ref": "LogRetentionDays"}}, {"RetentionInDays": "3653"}, {"LogRetentionDays": "3653"})
	f.line == 4
	contains(f.msg, "Logs: log events kept 3653 days (LogRetentionDays=3653 in prod's parameters), beyond docs/deploy.md's ceiling of 365 days")
}

test_refuses_forever if {
	some f in log_retention_ceiling.deny with input as group({}, {}, {})
	contains(f.msg, "kept forever (no RetentionInDays)")
}

test_passes_ninety_days if {
	count(log_retention_ceiling.deny) == 0 with input as group({"RetentionInDays": 90}, {"RetentionInDays": 90}, {})
}
