# METADATA
# title: Privileged jobs run only for a push to main
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#mitigating-the-risks-of-untrusted-code-checkout
# custom:
#   id: PS-WF-002
#   danger: a workflow holding an environment, an OIDC token or a secret that a pull request, a dispatch, a schedule or another branch can start runs code main's review never saw with that privilege.
#   fix: "trigger it with `on: push: branches: [main]` and nothing else, or move the privileged jobs to such a workflow"
package preflight.rules.privileged_trigger

import data.preflight.lib.github

privileged(w) := top_why(w) | {sprintf("%s (%s)", [j.name, concat(", ", sort(why))]) |
	some j in w.jobs
	why := github.privilege(w, j)
	count(why) > 0
}

top_why(w) := {sprintf("every job (the workflow's env: reads %s)", [concat(", ", w.secret_refs)])} if count(w.secret_refs) > 0

else := set()

deny contains {"file": w.file, "line": object.get(w.top, ["on", "line"], 1), "msg": msg} if {
	some w in input.workflows
	jobs := privileged(w)
	count(jobs) > 0
	not github.only_push_to_main(w)
	events := [t.event | some t in w.triggers]
	msg := sprintf("the workflow holds privileged jobs %s but runs on %s", [concat("; ", sort(jobs)), concat(", ", events)])
}
