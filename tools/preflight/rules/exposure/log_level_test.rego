package preflight.rules.log_level_test

import data.preflight.rules.log_level

function(raw, props, params) := {"evidence_floor": {"log_level": "INFO"}, "stacks": [{"variant": "prod", "file": "template.yaml", "params": params, "resources": {"CreatePlantFunction": {
	"type": "AWS::Lambda::Function", "line": 40, "raw": raw, "properties": props,
}}}]}

level(v) := {"Environment": {"Variables": {"LOG_LEVEL": v}}}

test_refuses_warn_from_the_environments_parameters if {
	some f in log_level.deny with input as function(level({"Ref": "LogLevel"}), level("warn"), {"LogLevel": "warn"})
	f.line == 40
	f.msg == "CreatePlantFunction [prod]: logs at LOG_LEVEL=warn (LogLevel=warn in prod's parameters): the info lines an incident reads (one per request, one per token decision) are dropped"
}

test_refuses_levels_above_info if {
	every v in ["error", "WARN", "info+1", "DEBUG+5"] {
		count(log_level.deny) == 1 with input as function({}, level(v), {})
	}
}

test_refuses_lambdas_filters if {
	some f in log_level.deny with input as function({}, {"LoggingConfig": {"ApplicationLogLevel": "WARN", "SystemLogLevel": "WARN"}}, {})
	contains(f.msg, "filters its application logs at WARN")
	count(log_level.deny) == 2 with input as function({}, {"LoggingConfig": {"ApplicationLogLevel": "WARN", "SystemLogLevel": "WARN"}}, {})
}

test_passes_info_and_more_detail if {
	every v in ["info", "debug", "INFO-2", "", "nonsense"] {
		count(log_level.deny) == 0 with input as function({}, level(v), {})
	}
	count(log_level.deny) == 0 with input as function({}, {"LoggingConfig": {"ApplicationLogLevel": "DEBUG", "SystemLogLevel": "INFO"}}, {})
}
