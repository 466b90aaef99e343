# METADATA
# title: The checks' environment is the files' own
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-commands#setting-an-environment-variable
# custom:
#   id: PS-CI-005
#   danger: an env value of ci.yml's checks job taken from the repository's settings (${{ vars.X }}), or a step before .ci/run that writes $GITHUB_ENV or $GITHUB_PATH, changes what the checks run (GOFLAGS, CI, PATH) outside review.
#   fix: give the checks' env literal values in ci.yml, and write no environment file before .ci/run
package preflight.rules.checks_env

import data.preflight.lib.github

# The job's own token is no setting.
job_token(e) if regex.match(`^\$\{\{\s*(github\.token|secrets\.GITHUB_TOKEN)\s*\}\}$`, e)

deny contains {"file": e.file, "line": e.line, "msg": msg} if {
	some e in input.gate.env
	e.file != ".ci/run"
	some x in github.expressions(e.value)
	not job_token(x)
	msg := sprintf("env %s: `%s` reaches the checks from the repository's settings, outside review: it can change what they run", [e.name, x])
}

deny contains {"file": s.file, "line": s.line, "msg": msg} if {
	job := input.gate.job
	some s in input.gate.scripts
	s.file == job.file
	s.job == job.name
	s.step < job.step
	some c in s.commands
	some f in env_files(c)
	msg := sprintf("step %d writes $%s before .ci/run: the checks then run with an environment no file states (GOFLAGS, CI, PATH)", [s.step, f])
}

env_files(c) := {f |
	some f in {"GITHUB_ENV", "GITHUB_PATH"}
	some t in array.concat([r.target | some r in c.redirects], c.words)
	contains(t, f)
}
