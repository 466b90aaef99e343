# METADATA
# title: Deploy jobs run one at a time, and are never cancelled midway
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#concurrency
# custom:
#   id: PS-WF-026
#   danger: a deploy job (an environment, or AWS credentials) with no concurrency group, a group that differs per run, or cancel-in-progress lets two pushes deploy the same stack at once, an older commit land after a newer one, or a deploy stop halfway through its change set.
#   fix: "keep `concurrency: {group: deploy, cancel-in-progress: false}` on the workflow (or the deploy jobs)"
package preflight.rules.deploy_concurrency

deploys(j) if j.has_environment

deploys(j) if {
	some s in j.steps
	s.action == "aws-actions/configure-aws-credentials"
}

# concurrency is the setting that applies to a job: its own, or the
# workflow's.
concurrency(w, j) := j.keys.concurrency if j.keys.concurrency

else := w.top.concurrency if w.top.concurrency

group(c) := c.value if is_string(c.value)

else := object.get(c.value, "group", "")

per_run := `github\.(sha|run_id|run_number|run_attempt|event\.after|event\.head_commit)`

deny contains {"file": w.file, "line": j.line, "msg": sprintf("deploy job %s has no concurrency group: two runs can deploy the same stack at once, or out of order", [j.name])} if {
	some w in input.workflows
	some j in w.jobs
	deploys(j)
	not concurrency(w, j)
}

# governed(w, c) are the deploy jobs a concurrency setting (the
# workflow's, or a job's own) applies to.
governed(w, c) := {j.name |
	some j in w.jobs
	deploys(j)
	concurrency(w, j) == c
}

settings(w) := {c |
	some j in w.jobs
	deploys(j)
	c := concurrency(w, j)
}

deny contains {"file": w.file, "line": c.line, "msg": msg} if {
	some w in input.workflows
	some c in settings(w)
	regex.match(per_run, group(c))
	msg := sprintf("the concurrency group `%s` of deploy jobs %s differs for every run, so it holds no other run back", [group(c), concat(", ", sort(governed(w, c)))])
}

deny contains {"file": w.file, "line": c.line, "msg": msg} if {
	some w in input.workflows
	some c in settings(w)
	is_object(c.value)
	object.get(c.value, "cancel-in-progress", "false") != "false"
	msg := sprintf("cancel-in-progress `%v` can stop deploy jobs %s halfway through their change sets", [c.value["cancel-in-progress"], concat(", ", sort(governed(w, c)))])
}
