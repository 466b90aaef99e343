# METADATA
# title: The GITHUB_TOKEN reads only
# related_resources:
#   - ref: https://docs.zizmor.sh/audits/#excessive-permissions
# custom:
#   id: PS-WF-003
#   danger: a write scope on the GITHUB_TOKEN, or none declared (the repository's default, which can be broad), lets any step push, tag or approve with it.
#   fix: "set `permissions: {contents: read}` at the top, and give a job only what it needs, each read (security-events write only beside a SARIF upload)"
package preflight.rules.excessive_permissions

import data.preflight.lib.github

deny contains {"file": w.file, "line": object.get(w.top, ["jobs", "line"], 1), "msg": "no top-level permissions: every job gets the repository's default GITHUB_TOKEN scopes"} if {
	some w in input.workflows
	not w.top.permissions
}

deny contains {"file": w.file, "line": w.top.permissions.line, "msg": sprintf("top-level `permissions: %v` grants every scope to every job", [p])} if {
	some w in input.workflows
	p := w.top.permissions.value
	is_string(p)
}

deny contains {"file": w.file, "line": w.top.permissions.line, "msg": sprintf("top-level `%s: %s`: every job inherits it", [scope, v])} if {
	some w in input.workflows
	some scope, v in w.top.permissions.value
	not v in {"read", "none"}
	scope != "id-token"
}

deny contains {"file": w.file, "line": j.keys.permissions.line, "msg": sprintf("`permissions: %v` in job %s grants every scope", [p, j.name])} if {
	some w in input.workflows
	some j in w.jobs
	p := github.permissions(j)
	is_string(p)
}

deny contains {"file": w.file, "line": j.keys.permissions.line, "msg": sprintf("`%s: %s` in job %s: nothing here writes to the repository", [scope, v, j.name])} if {
	some w in input.workflows
	some j in w.jobs
	some scope, v in github.permissions(j)
	not v in {"read", "none"}
	scope != "id-token"
	not uploads_sarif(j, scope)
}

# GitHub code scanning's upload (github/codeql-action/upload-sarif) needs
# security-events: write, in the job that uploads and no other.
uploads_sarif(j, "security-events") if {
	some s in j.steps
	s.action == "github/codeql-action/upload-sarif"
}
