# METADATA
# title: No shell tracing or debug logging where a step holds credentials
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#use-secrets-for-sensitive-information
# custom:
#   id: PS-WF-020
#   danger: "set -x, bash -x or a debug setting (ACTIONS_STEP_DEBUG, ACTIONS_RUNNER_DEBUG, RUNNER_DEBUG) in a step that holds AWS credentials, the OIDC request token or a secret prints each command with its expanded values before any ::add-mask:: can hide them, into a log every reader of the repository's Actions sees."
#   fix: "remove the tracing; print the one value you need, never a credential, or debug with a re-run's debug logging, which only admins can turn on"
package preflight.rules.shell_tracing

import data.preflight.lib.github
import data.preflight.lib.leaks

tracing := `(^|[;&|(]\s*|\s)(set\s+(-[A-Za-z]*x[A-Za-z]*|-o\s+xtrace)|(bash|sh)\s+-[A-Za-z]*x[A-Za-z]*)(\s|$|;)`

debug_names := {"ACTIONS_STEP_DEBUG", "ACTIONS_RUNNER_DEBUG", "RUNNER_DEBUG"}

deny contains {"file": w.file, "line": l.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	count(leaks.credentials(w, j, s)) > 0
	some l in leaks.run_lines(s)
	regex.match(tracing, l.text)
	msg := sprintf("%s: `%s` traces every command with its values while the step holds %s", [github.step_where(j, s), trim_space(l.text), leaks.held(w, j, s)])
}

deny contains {"file": w.file, "line": s.keys.shell.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	count(leaks.credentials(w, j, s)) > 0
	regex.match(`\s-[A-Za-z]*x`, s.keys.shell.value)
	msg := sprintf("%s: `shell: %s` traces every command with its values while the step holds %s", [github.step_where(j, s), s.keys.shell.value, leaks.held(w, j, s)])
}

# A debug setting in env: reaches every step below it.
deny contains {"file": e.file, "line": e.line, "msg": msg} if {
	some e in input.supply.settings
	e["in"] == "env"
	e.name in debug_names
	lower(sprintf("%v", [e.value])) in {"true", "1"}
	some w in input.workflows
	w.file == e.file
	some j in w.jobs
	e.job in {"", j.name}
	some s in j.steps
	e.step in {0, s.index}
	count(leaks.credentials(w, j, s)) > 0
	msg := sprintf("%s=%v in env asks for debug logs of steps that hold %s", [e.name, e.value, leaks.held(w, j, s)])
}
