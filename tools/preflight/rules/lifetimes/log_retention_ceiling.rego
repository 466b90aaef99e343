# METADATA
# title: Log groups keep their events at most the ceiling
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-logs-loggroup.html
# custom:
#   id: PS-LIFE-005
#   danger: a log group kept beyond docs/deploy.md's ceiling, or forever (no RetentionInDays), keeps the clients' addresses and principals of every request long after any incident needs them.
#   fix: keep RetentionInDays between docs/deploy.md's floor and ceiling in every environment (samconfig.toml's LogRetentionDays)
package preflight.rules.log_retention_ceiling

import data.preflight.lib.stacks

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "RetentionInDays"), "msg": msg} if {
	most := input.evidence_floor.retention_max_days
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Logs::LogGroup"
	kept := kept_for(r.properties)
	kept != "at most"
	msg := sprintf("%s: log events kept %s%s, beyond docs/deploy.md's ceiling of %d days: the requests' addresses and principals outlive any incident", [id, kept, stacks.param_source(s, object.get(r.raw, "RetentionInDays", {})), most])
}

kept_for(p) := "forever (no RetentionInDays)" if {
	not p.RetentionInDays
} else := sprintf("%v days", [stacks.number(p.RetentionInDays)]) if {
	stacks.number(p.RetentionInDays) > input.evidence_floor.retention_max_days
} else := "at most"
