# METADATA
# title: Nothing deploys what the checks or dev did not pass
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idneeds
# custom:
#   id: PS-WF-011
#   danger: an environment job that does not wait for ci.yml's checks (or prod for dev, whose smoke check follows its sam deploy) ships a commit whose checks failed or that dev never proved.
#   fix: make every environment job need the job `uses ./.github/workflows/ci.yml`, prod need dev, with no always()/failure()/cancelled() on the way, and keep dev's `make smoke` step (no if) after its `sam deploy`
package preflight.rules.deploy_order

import data.preflight.lib.github

calls_ci(j) if trim_prefix(j.uses, "./") == ".github/workflows/ci.yml"

env_jobs(w, env) := [j | some j in w.jobs; j.has_environment; j.environment == env]

waits_for(w, from, pred_job) if {
	some name in github.waits(w, from)
	some k in w.jobs
	k.name == name
	k.name == pred_job.name
	not github.runs_after_failure(k)
}

deny contains {"file": w.file, "line": j.line, "msg": sprintf("job %s deploys without waiting for ci.yml's checks to pass", [j.name])} if {
	some w in input.workflows
	some j in w.jobs
	j.has_environment
	not waits_ci(w, j)
}

waits_ci(w, j) if {
	some k in w.jobs
	calls_ci(k)
	waits_for(w, j.name, k)
}

has_env_jobs(w) if {
	some j in w.jobs
	j.environment in {"dev", "prod"}
}

deny contains {"file": w.file, "line": object.get(w.top, ["jobs", "line"], 1), "msg": sprintf("jobs in environment dev: %d, in prod: %d; want one of each", [count(env_jobs(w, "dev")), count(env_jobs(w, "prod"))])} if {
	some w in input.workflows
	has_env_jobs(w)
	not one_each(w)
}

one_each(w) if {
	count(env_jobs(w, "dev")) == 1
	count(env_jobs(w, "prod")) == 1
}

deny contains {"file": w.file, "line": prod.line, "msg": "prod does not wait for dev (needs, with no always()/failure()/cancelled()): it can ship what dev's smoke check never saw"} if {
	some w in input.workflows
	one_each(w)
	prod := env_jobs(w, "prod")[0]
	not waits_for(w, prod.name, env_jobs(w, "dev")[0])
}

calls(s, words) if {
	some c in s.calls
	array.slice(c, 0, count(words)) == words
}

smoked(dev) if {
	some i, s in dev.steps
	calls(s, ["sam", "deploy"])
	not deployed_before(dev, i)
	some k, t in dev.steps
	k > i
	t["if"] == ""
	calls(t, ["make", "smoke"])
}

deployed_before(dev, i) if {
	some k, s in dev.steps
	k < i
	calls(s, ["sam", "deploy"])
}

deny contains {"file": w.file, "line": dev.line, "msg": "the dev job does not run `make smoke` (in a step with no if:) after its `sam deploy` step"} if {
	some w in input.workflows
	one_each(w)
	dev := env_jobs(w, "dev")[0]
	not smoked(dev)
}
