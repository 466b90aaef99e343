# METADATA
# title: Actions and reusable workflows pinned to a commit
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#using-third-party-actions
# custom:
#   id: PS-WF-005
#   danger: an action or reusable workflow named by a tag or branch, in a workflow or in one of the repository's own actions, runs whatever its owner moves that name to; a Docker action by tag, whatever its registry serves.
#   fix: "pin to the full 40-hex commit SHA with the tag in a comment (uses: owner/repo@<sha> # vX.Y.Z), a Docker action as docker://image@sha256:<digest>"
package preflight.rules.unpinned_uses

import data.preflight.lib.github

pinned(uses) if uses == ""

pinned(uses) if startswith(uses, "./")

pinned(uses) if regex.match(`^docker://[^@\s]+@sha256:[0-9a-f]{64}$`, uses)

pinned(uses) if sha_pinned(uses)

deny contains {"file": w.file, "line": j.line, "msg": sprintf("job %s: `%s` is not pinned to a commit", [j.name, j.uses])} if {
	some w in input.workflows
	some j in w.jobs
	not pinned(j.uses)
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: `%s` is not pinned to a commit or digest", [github.step_where(j, s), s.uses])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	not pinned(s.uses)
}

# A SHA says nothing to a reader: the tag it stands for is the comment
# beside it, which Dependabot and a reviewer read.
sha_pinned(uses) if {
	not startswith(uses, "docker://")
	regex.match(`^[^@\s]+@[0-9a-f]{40}$`, uses)
}

untagged(x) if {
	sha_pinned(x.uses)
	not regex.match(`^#\s*v\d+(\.\d+)*$`, object.get(x, "uses_comment", ""))
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: `%s` has no `# vX.Y.Z` comment naming the tag its SHA stands for", [github.step_where(j, s), s.uses])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	untagged(s)
}

deny contains {"file": w.file, "line": j.line, "msg": sprintf("job %s: `%s` has no `# vX.Y.Z` comment naming the tag its SHA stands for", [j.name, j.uses])} if {
	some w in input.workflows
	some j in w.jobs
	untagged(j)
}

# The repository's own actions (.github/actions/<name>/action.yml): a
# composite action's steps, and a Docker action's image, run in the
# workflow that uses them.
deny contains {"file": a.file, "line": s.line, "msg": sprintf("step %d: `%s` is not pinned to a commit or digest", [s.index, s.uses])} if {
	some a in input.actions
	some s in a.steps
	not local_image(s.uses)
	not pinned(s.uses)
}

deny contains {"file": a.file, "line": s.line, "msg": sprintf("step %d: `%s` has no `# vX.Y.Z` comment naming the tag its SHA stands for", [s.index, s.uses])} if {
	some a in input.actions
	some s in a.steps
	untagged(s)
}

# A Docker action's image may be its own Dockerfile.
local_image(uses) if uses == "Dockerfile"

local_image(uses) if endswith(uses, "/Dockerfile")
