# METADATA
# title: No verbose HTTP or debug output of tools that carry credentials
# related_resources:
#   - ref: https://docs.aws.amazon.com/cli/latest/userguide/cli-configure-options.html
# custom:
#   id: PS-WF-021
#   danger: "curl -v or --trace, wget --debug, or aws/sam --debug in a step that holds credentials prints the requests' headers (an Authorization Basic of client id and secret, an X-Amz-Security-Token, a signed URL) to the log, in forms ::add-mask:: does not recognise."
#   fix: "drop the verbose or debug flag; print the status or the one field you need (curl -sS -w '%{http_code}')"
package preflight.rules.verbose_requests

import data.preflight.lib.github
import data.preflight.lib.leaks

# Each ends at a blank, the line's end or the ) of a substitution.
verbose := [
	`(^|[\s;&|(])curl\b[^|;&]*(\s-[A-Za-z]*v[A-Za-z]*|\s--verbose|\s--trace(-ascii)?)(\s|=|$|\))`,
	`(^|[\s;&|(])wget\b[^|;&]*\s(-d|--debug)(\s|$|\))`,
	`(^|[\s;&|(])(aws|sam)\b[^|;&]*\s--debug(\s|$|\))`,
]

deny contains {"file": w.file, "line": l.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	count(leaks.credentials(w, j, s)) > 0
	some l in leaks.run_lines(s)
	some re in verbose
	regex.match(re, l.text)
	msg := sprintf("%s: `%s` prints its requests' headers while the step holds %s", [github.step_where(j, s), trim_space(l.text), leaks.held(w, j, s)])
}
