# METADATA
# title: Jobs run on GitHub-hosted runners
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#hardening-for-self-hosted-runners
# custom:
#   id: PS-WF-012
#   danger: a self-hosted or organisation runner (or one chosen at run time) keeps what a pull request's code leaves behind for the next job, including the deploy's.
#   fix: "run it on a GitHub-hosted label, e.g. `runs-on: ubuntu-24.04` (or a matrix of such labels)"
package preflight.rules.self_hosted_runner

import data.preflight.lib.github

hosted(l) if regex.match(`^(?:ubuntu-(?:latest|slim|\d\d\.\d\d(?:-arm)?)|windows-(?:latest|\d{4}|11-arm)|macos-(?:latest|\d+)(?:-intel|-large|-xlarge)?)$`, l)

# A workflow only a schedule starts, with no privileged job, runs main's
# code and ships nothing.
schedule_only(w) if {
	every t in w.triggers {
		t.event == "schedule"
	}
	every j in w.jobs {
		count(github.privilege(w, j)) == 0
	}
}

deny contains {"file": w.file, "line": object.get(j.keys, ["runs-on", "line"], j.line), "msg": sprintf("job %s runs on %s, which is not a GitHub-hosted runner label", [j.name, concat(", ", [sprintf("`%s`", [l]) | some l in bad])])} if {
	some w in input.workflows
	not schedule_only(w)
	some j in w.jobs
	j.uses == ""
	bad := [l | some l in labels(j); not hosted(l)]
	count(bad) > 0
}

labels(j) := j.runner_labels if count(j.runner_labels) > 0

labels(j) := ["(none)"] if count(j.runner_labels) == 0
