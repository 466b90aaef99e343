# METADATA
# title: No continue-on-error
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idcontinue-on-error
# custom:
#   id: PS-WF-009
#   danger: continue-on-error lets a job or workflow pass when the step or job fails, so a failing check lets the deploy go on.
#   fix: remove continue-on-error
package preflight.rules.continue_on_error

import data.preflight.lib.github

set_true(keys) if {
	v := keys["continue-on-error"].value
	v != "false"
	v != null
}

deny contains {"file": w.file, "line": j.keys["continue-on-error"].line, "msg": sprintf("job %s: `continue-on-error: %v`: the job's failure no longer fails the run", [j.name, j.keys["continue-on-error"].value])} if {
	some w in input.workflows
	some j in w.jobs
	set_true(j.keys)
}

deny contains {"file": w.file, "line": s.keys["continue-on-error"].line, "msg": sprintf("%s: `continue-on-error: %v`: the step's failure no longer fails the job", [github.step_where(j, s), s.keys["continue-on-error"].value])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	set_true(s.keys)
}
