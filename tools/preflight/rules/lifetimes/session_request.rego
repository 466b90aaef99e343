# METADATA
# title: A deploy job's AWS session lasts as docs/deploy.md says
# related_resources:
#   - ref: https://github.com/aws-actions/configure-aws-credentials#session-duration
# custom:
#   id: PS-LIFE-002
#   danger: role-duration-seconds beyond docs/deploy.md's ceiling keeps a deploy job's credentials usable long after the job, and below its floor lets them expire while sam deploy still waits on a canary release, which leaves the release unwatched and the prod job failed halfway.
#   fix: leave role-duration-seconds unset (one hour) or within docs/deploy.md's floor and ceiling ("Lifetimes")
package preflight.rules.session_request

deny contains {"file": w.file, "line": st.line, "msg": msg} if {
	floor := input.evidence_floor
	some w in input.workflows
	some j in w.jobs
	some st in j.steps
	st.action == "aws-actions/configure-aws-credentials"
	raw := st.with["role-duration-seconds"]
	regex.match(`^[0-9]+$`, trim_space(raw))
	seconds := to_number(trim_space(raw))
	why := judge(seconds, floor.session_min_seconds, floor.session_max_seconds)
	msg := sprintf("job %s: role-duration-seconds %v %s", [j.name, seconds, why])
}

judge(n, least, _) := sprintf("is below docs/deploy.md's floor of %v s: the credentials expire while sam deploy still waits on the release", [least]) if {
	n < least
}

judge(n, _, most) := sprintf("is beyond docs/deploy.md's ceiling of %v s: the credentials stay usable long after the job", [most]) if {
	n > most
}
