# METADATA
# title: Functions log at the floor's level
# related_resources:
#   - ref: https://docs.aws.amazon.com/lambda/latest/api/API_LoggingConfig.html
# custom:
#   id: PS-EXP-004
#   danger: a function that logs above docs/deploy.md's floor ("What an incident needs") drops the info lines an incident reads, one per request and one per token decision.
#   fix: leave LOG_LEVEL at info and Lambda's log-level filters at INFO or unset in every environment; cut cost with retention above the floor, not with the lines
package preflight.rules.log_level

import data.preflight.lib.stacks

deny := stacks.told(found)

# LOG_LEVEL is read by internal/logging as log/slog reads a level: a name
# with an optional offset (INFO+2), case-insensitive.
found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Lambda::Function"
	v := r.properties.Environment.Variables.LOG_LEVEL
	slog_level(v) > slog_level(input.evidence_floor.log_level)
	raw := object.get(r.raw, ["Environment", "Variables", "LOG_LEVEL"], null)
	msg := sprintf("logs at LOG_LEVEL=%v%s: the info lines an incident reads (one per request, one per token decision) are dropped", [v, stacks.source(s, raw, v)])
}

# Lambda "only sends application logs at the selected level of detail and
# lower" (LoggingConfig); the REPORT lines (durations, init) are system
# logs.
found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Lambda::Function"
	some filter, levels in filters
	v := r.properties.LoggingConfig[filter]
	above(levels, v)
	msg := sprintf("filters its %s at %v: Lambda drops the %s an incident reads", [filters_say[filter][0], v, filters_say[filter][1]])
}

filters := {"ApplicationLogLevel": ["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"], "SystemLogLevel": ["DEBUG", "INFO", "WARN"]}

filters_say := {"ApplicationLogLevel": ["application logs", "info lines"], "SystemLogLevel": ["system logs", "REPORT lines (durations, init)"]}

above(levels, v) if {
	some i, l in levels
	l == upper(sprintf("%v", [v]))
	some j, floor in levels
	floor == upper(input.evidence_floor.log_level)
	i > j
}

slog_level(v) := names[upper(m[1])] + offset(m[2]) if {
	some m in regex.find_all_string_submatch_n(`^(?i)(debug|info|warn|error)([+-]\d+)?$`, sprintf("%v", [v]), 1)
}

names := {"DEBUG": -4, "INFO": 0, "WARN": 4, "ERROR": 8}

offset("") := 0

offset(s) := to_number(trim_prefix(s, "+")) if s != ""
