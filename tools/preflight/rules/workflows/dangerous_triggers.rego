# METADATA
# title: No pull_request_target or workflow_run trigger
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#dangerous-triggers
# custom:
#   id: PS-WF-001
#   danger: pull_request_target and workflow_run run in the base repository's privileged context on an event a fork controls.
#   fix: trigger with pull_request (or workflow_call in place of workflow_run)
package preflight.rules.dangerous_triggers

deny contains {"file": w.file, "line": t.line, "msg": sprintf("on.%s runs in the base repository's privileged context on an event a fork controls", [t.event])} if {
	some w in input.workflows
	some t in w.triggers
	t.event in {"pull_request_target", "workflow_run"}
}
