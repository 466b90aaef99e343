# METADATA
# title: Log groups keep their events at least the floor
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-logs-loggroup.html
# custom:
#   id: PS-EXP-005
#   danger: a log group that keeps its events fewer days than docs/deploy.md's floor ("What an incident needs") leaves an incident found later with no log to read.
#   fix: keep RetentionInDays at the floor or more in every environment (samconfig.toml's parameter_overrides)
package preflight.rules.log_retention

# The floor is docs/deploy.md's, handed in by Go
# (input.evidence_floor.retention_days, which a test holds equal to the
# doc). Without RetentionInDays, CloudWatch Logs keeps the events forever.
deny contains {"file": s.file, "line": r.line, "msg": msg} if {
	floor := input.evidence_floor.retention_days
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Logs::LogGroup"
	days := to_number(r.properties.RetentionInDays)
	days < floor
	msg := sprintf("%s: log events kept %s%s, below the floor of %d days: an incident found later has no log to read", [id, plural(days), source(s, r), floor])
}

plural(1) := "1 day"

plural(n) := sprintf("%v days", [n]) if n != 1

# source says where the value comes from when it is a parameter.
source(s, r) := sprintf(" (%s=%v in %s's parameters)", [name, s.params[name], s.variant]) if {
	name := r.raw.RetentionInDays.Ref
	s.params[name]
} else := sprintf(" (%s, whose default is %v)", [r.raw.RetentionInDays.Ref, r.properties.RetentionInDays]) if {
	r.raw.RetentionInDays.Ref
} else := ""
