# METADATA
# title: No dump of the environment or of every secret
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#use-secrets-for-sensitive-information
# custom:
#   id: PS-WF-022
#   danger: "env, printenv, set, export -p or /proc/*/environ in a step that holds credentials, a dump written to a file (which an artifact or a cache carries off unmasked), or toJSON(secrets) hands every credential of the run to whoever reads the log or the file."
#   fix: "print the variables you need by name, never the whole environment, and pass each step only the secrets it uses"
package preflight.rules.env_dump

import data.preflight.lib.github
import data.preflight.lib.leaks

dump := `(^|[;&|(]\s*|\$\(\s*)(env|printenv|set|export\s+-p|declare\s+-p|declare\s+-x|compgen\s+-e)\s*($|[|>;&)])|/proc/[^/\s]+/environ`

to_file := `(^|[^0-9&])>{1,2}\s*[^&\s]|\|\s*tee\b`

deny contains {"file": w.file, "line": l.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	some l in leaks.run_lines(s)
	regex.match(dump, l.text)
	why := reason(w, j, s, l)
	msg := sprintf("%s: `%s` dumps the environment %s", [github.step_where(j, s), trim_space(l.text), why])
}

reason(w, j, s, l) := sprintf("while the step holds %s", [leaks.held(w, j, s)]) if count(leaks.credentials(w, j, s)) > 0

else := "into a file, which an artifact or a cache carries off unmasked" if regex.match(to_file, l.text)

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: toJSON(secrets) hands every secret of the repository to the step", [github.step_where(j, s)])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	regex.match(`toJSON\(\s*secrets\s*\)`, json.marshal([s.run, s["with"], object.get(s, ["keys", "env", "value"], {})]))
}
