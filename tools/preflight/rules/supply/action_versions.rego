# METADATA
# title: Toolchains and tools that actions install are pinned
# related_resources:
#   - ref: https://github.com/actions/setup-go#supported-version-syntax
# custom:
#   id: PS-SUP-017
#   danger: an action input that names an alias, a wildcard or a range (go-version stable or 1.x, node-version lts/*, python-version 3.x), check-latest, or aws-actions/setup-sam without a version (its default is the latest SAM CLI) installs a toolchain or the tool that builds and deploys whatever is newest when CI runs.
#   fix: "name an exact version (setup-sam `version: 1.161.1`), or the toolchain's release line the repository is reviewed on (go-version-file: go.mod, node-version '20', python-version '3.11'), and drop check-latest"
package preflight.rules.action_versions

import data.preflight.lib.github

# floating says why a version floats: an alias, a wildcard, a range.
floating(v) := "an alias" if lower(v) in {"latest", "stable", "oldstable", "lts", "node", "current", "*", "x", "nightly"}

else := "an alias" if startswith(lower(v), "lts/")

else := "a wildcard" if {
	regex.match(`(^|\.)[xX*](\.|$)`, v)
}

else := "a range" if {
	regex.match(`[\^~<>|]|\s-\s`, v)
}

step_of(e) := s if {
	some w in input.workflows
	w.file == e.file
	some j in w.jobs
	j.name == e.job
	some s in j.steps
	s.index == e.step
}

deny contains {"file": e.file, "line": e.line, "msg": msg} if {
	some e in input.supply.settings
	e["in"] == "with"
	regex.match(`(^|-)version$`, e.name)
	why := floating(sprintf("%v", [e.value]))
	s := step_of(e)
	msg := sprintf("%s: `%s: %v` is %s: the version installed is whatever it resolves to when CI runs", [github.step_where(github_job(e), s), e.name, e.value, why])
}

deny contains {"file": e.file, "line": e.line, "msg": msg} if {
	some e in input.supply.settings
	e["in"] == "with"
	e.name == "check-latest"
	sprintf("%v", [e.value]) == "true"
	s := step_of(e)
	msg := sprintf("%s: `check-latest: true` installs the newest release matching the version, not the one cached and reviewed", [github.step_where(github_job(e), s)])
}

deny contains {"file": w.file, "line": s.line, "msg": msg} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.action == "aws-actions/setup-sam"
	not s["with"].version
	msg := sprintf("%s: aws-actions/setup-sam without `version` installs the latest SAM CLI, the tool that builds and deploys the stack", [github.step_where(j, s)])
}

github_job(e) := {"name": e.job}
