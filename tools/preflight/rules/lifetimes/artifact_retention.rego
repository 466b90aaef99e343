# METADATA
# title: Build artifacts are kept as long as docs/deploy.md says
# related_resources:
#   - ref: https://github.com/actions/upload-artifact#retention-period
#   - ref: https://docs.github.com/en/actions/how-tos/manage-workflow-runs/remove-workflow-artifacts#setting-the-retention-period-for-an-artifact
# custom:
#   id: PS-LIFE-004
#   danger: an artifact kept fewer days than docs/deploy.md's floor is gone before prod's reviewer approves the build that dev proved, and one kept beyond its ceiling (or without retention-days, the repository's default of up to 90 days) leaves the built functions readable by everyone who can read the runs.
#   fix: set retention-days on every actions/upload-artifact step within docs/deploy.md's floor and ceiling ("Lifetimes")
package preflight.rules.artifact_retention

deny contains {"file": w.file, "line": st.line, "msg": msg} if {
	floor := input.evidence_floor
	some w in input.workflows
	some j in w.jobs
	some st in j.steps
	st.action == "actions/upload-artifact"
	why := judge(object.get(st.with, "retention-days", ""), floor.artifact_min_days, floor.artifact_max_days)
	msg := sprintf("job %s, step %s: %s", [j.name, st.label, why])
}

judge("", _, most) := sprintf("no retention-days: the repository's default (90 days unless its settings say less) keeps the artifact beyond docs/deploy.md's ceiling of %v days", [most])

judge(raw, least, _) := sprintf("retention-days %v is below docs/deploy.md's floor of %v days: the build is gone before prod's reviewer approves it", [raw, least]) if {
	to_number(raw) < least
}

judge(raw, _, most) := sprintf("retention-days %v is beyond docs/deploy.md's ceiling of %v days: the built functions stay readable by whoever can read the runs", [raw, most]) if {
	to_number(raw) > most
}
