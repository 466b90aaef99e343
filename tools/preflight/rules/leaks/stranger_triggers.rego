# METADATA
# title: No workflow runs on a stranger's issue, comment, discussion, fork or star
# related_resources:
#   - ref: https://securitylab.github.com/resources/github-actions-preventing-pwn-requests/
# custom:
#   id: PS-WF-024
#   danger: issue_comment, issues, discussion, discussion_comment, fork and watch run the default branch's workflow with its secrets, caches and a token that can write, whenever anyone on GitHub comments, opens an issue or forks, with text they chose in the event.
#   fix: "trigger on pull_request or push; a command from a comment needs a maintainer's approval, e.g. a label on a pull_request run"
package preflight.rules.stranger_triggers

strangers := {"issue_comment", "issues", "discussion", "discussion_comment", "fork", "watch"}

deny contains {"file": w.file, "line": t.line, "msg": msg} if {
	some w in input.workflows
	some t in w.triggers
	t.event in strangers
	msg := sprintf("on.%s runs this workflow with the default branch's secrets and a write token whenever anyone on GitHub acts, with event text they wrote", [t.event])
}
