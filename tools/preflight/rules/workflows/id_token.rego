# METADATA
# title: The OIDC token only in an environment's job of a push to main
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#using-openid-connect-to-access-cloud-resources
# custom:
#   id: PS-WF-004
#   danger: "`id-token: write` outside a job that names an environment, or in a workflow that runs on more than a push to main, lets that job assume a deploy role without the environment's reviewers and branch policy."
#   fix: "grant id-token write only in the dev and prod jobs (environment jobs) of a workflow triggered by `on: push: branches: [main]` alone"
package preflight.rules.id_token

import data.preflight.lib.github

deny contains {"file": w.file, "line": w.top.permissions.line, "msg": sprintf("`id-token: %s` at the top level gives every job the deploy credential", [v])} if {
	some w in input.workflows
	v := w.top.permissions.value["id-token"]
	not v in {"read", "none"}
}

deny contains {"file": w.file, "line": j.keys.permissions.line, "msg": sprintf("`id-token: write` in job %s, which names no environment", [j.name])} if {
	some w in input.workflows
	some j in w.jobs
	github.permissions(j)["id-token"] == "write"
	not j.has_environment
}

deny contains {"file": w.file, "line": j.keys.permissions.line, "msg": sprintf("`id-token: write` in job %s of a workflow not triggered only by a push to main", [j.name])} if {
	some w in input.workflows
	some j in w.jobs
	github.permissions(j)["id-token"] == "write"
	j.has_environment
	not github.only_push_to_main(w)
}
