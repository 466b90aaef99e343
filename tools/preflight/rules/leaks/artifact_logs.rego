# METADATA
# title: Artifacts carry no logs, environment or credential files
# related_resources:
#   - ref: https://github.com/actions/upload-artifact#uploading-hidden-files
# custom:
#   id: PS-WF-023
#   danger: an artifact of logs, env or debug files, of a credentials directory (~/.aws, the runner's temp or _diag), of the whole workspace or home, or with include-hidden-files, publishes unmasked whatever the run wrote there (tokens, keys, .git's credentials) to everyone who can read the run.
#   fix: "upload only the build's named outputs (path: sam-build.tar), never logs, dot-files or a directory the run writes credentials to"
package preflight.rules.artifact_logs

import data.preflight.lib.github

risky := [
	`(^|/)[^/]*\.log$`,
	`(^|/)logs?(/|$)`,
	`(^|/)\.?env([._-][^/]*)?$|(^|/)[^/]*\.env$|(^|/)environment[^/]*$`,
	`(^|/)[^/]*debug[^/]*$`,
	`(^|/)\.aws(/|$)`,
	`(^|/)_diag(/|$)`,
	`RUNNER_TEMP|runner\.temp|^/tmp(/|$)`,
	`^(~|\$HOME|\$\{HOME\}|\$\{\{\s*github\.workspace\s*\}\}|\$GITHUB_WORKSPACE|\.|\./|\*|\*\*|\*\*/\*|/)/?$`,
]

deny contains {"file": w.file, "line": s.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.action == "actions/upload-artifact"
	some p in split(object.get(s["with"], "path", ""), "\n")
	path := trim_space(p)
	path != ""
	not startswith(path, "!")
	some re in risky
	regex.match(re, path)
	msg := sprintf("%s uploads `%s`: logs, environment or credential files go to everyone who can read the run, unmasked", [github.step_where(j, s), path])
}

deny contains {"file": w.file, "line": s.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.action == "actions/upload-artifact"
	object.get(s["with"], "include-hidden-files", "false") == "true"
	msg := sprintf("%s: include-hidden-files uploads dot-files (.env, .git's config, .aws) along with the build", [github.step_where(j, s)])
}
