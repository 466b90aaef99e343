# METADATA
# title: Every run step runs as bash with pipefail
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsshell
# custom:
#   id: PS-WF-010
#   danger: a run step with no shell runs as `bash -e {0}` without pipefail (and any other shell differs), so `make test | tee log` passes when the tests fail.
#   fix: "set `defaults: run: shell: bash` at the top of the workflow and no other shell"
package preflight.rules.run_shell

import data.preflight.lib.github

deny contains {"file": w.file, "line": s.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.run != ""
	s.shell != "bash"
	msg := sprintf("%s: %s", [github.step_where(j, s), what(s.shell)])
}

what(shell) := "the step runs with GitHub's default `bash -e {0}`, without pipefail" if shell == ""

what(shell) := sprintf("`shell: %s` is not GitHub's `bash` (`bash --noprofile --norc -eo pipefail {0}`)", [shell]) if shell != ""
