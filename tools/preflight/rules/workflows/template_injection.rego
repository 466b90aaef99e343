# METADATA
# title: No expression expanded into a script
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#use-an-intermediate-environment-variable
# custom:
#   id: PS-WF-008
#   danger: an expression in a run script (or github-script's script) is expanded into the script's text before the shell reads it, so a value becomes code.
#   fix: "set it in the step's env: (NAME: ${{ ... }}) and use \"$NAME\" in the script"
package preflight.rules.template_injection

import data.preflight.lib.github

code(s) := s.with.script if s.action == "actions/github-script"

code(s) := s.run if s.action != "actions/github-script"

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: `%s` is expanded into the script's text before the shell reads it", [github.step_where(j, s), e])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	some e in github.expressions(code(s))
}
