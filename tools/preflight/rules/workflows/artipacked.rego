# METADATA
# title: actions/checkout keeps no credential on disk
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#artipacked
# custom:
#   id: PS-WF-006
#   danger: actions/checkout without `persist-credentials false` leaves the GITHUB_TOKEN on disk, where a later step or an uploaded artifact can leak it.
#   fix: "add `with: persist-credentials: false`"
package preflight.rules.artipacked

import data.preflight.lib.github

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: actions/checkout without `persist-credentials: false` leaves the GITHUB_TOKEN on disk", [github.step_where(j, s)])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.action == "actions/checkout"
	object.get(s.with, "persist-credentials", "") != "false"
}
