# METADATA
# title: A role's sessions last at most docs/deploy.md's ceiling
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-iam-role.html
# custom:
#   id: PS-LIFE-001
#   danger: a role whose MaxSessionDuration passes docs/deploy.md's ceiling ("Lifetimes") lets a session taken from a deploy job's runner (its logs, a compromised step) keep changing the stack for hours after the job ended.
#   fix: keep MaxSessionDuration at the ceiling or less (3600, IAM's default, when unset)
package preflight.rules.session_duration

import data.preflight.lib.stacks

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "MaxSessionDuration"), "msg": msg} if {
	most := input.evidence_floor.session_max_seconds
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::IAM::Role"
	seconds := stacks.number(r.properties.MaxSessionDuration)
	seconds > most
	msg := sprintf("%s: MaxSessionDuration %v s, beyond docs/deploy.md's ceiling of %v s: a session taken from a job keeps this role's power for %v hours after the job ends", [id, seconds, most, seconds / 3600])
}
