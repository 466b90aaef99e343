# METADATA
# title: Only a person accepts the reviewed snapshots
# related_resources:
#   - ref: https://docs.aws.amazon.com/access-analyzer/latest/APIReference/API_CheckNoNewAccess.html
# custom:
#   id: PS-CI-003
#   danger: a workflow, .ci/run or a Makefile recipe that runs make preflight-accept, sets UPDATE_PREFLIGHT or writes the allowlist or a reviewed snapshot accepts new access or less proof on a reviewer's behalf.
#   fix: remove it; a person runs make preflight-accept and commits the diff for review
package preflight.rules.reviewer_accepts

protected(t) if contains(t, "allowlist.yaml")

protected(t) if contains(t, "preflight/testdata")

writers := {"tee", "cp", "mv", "sed", "install", "dd", "ln", "truncate", "rsync"}

out_ops := {">", ">>", ">|", "&>", "&>>"}

# The preflight-accept target is what a person runs.
scripts contains s if {
	some s in input.gate.scripts
	object.get(s, "target", "") != "preflight-accept"
}

accepts(c) := "UPDATE_PREFLIGHT makes the preflight rewrite the reviewed snapshots instead of comparing with them" if c.assigns.UPDATE_PREFLIGHT

else := "`make preflight-accept` accepts the snapshots on a reviewer's behalf" if {
	c.words[0] == "make"
	"preflight-accept" in c.words
} else := sprintf("`%s` writes the allowlist or a reviewed snapshot", [c.words[0]]) if {
	c.words[0] in writers
	some w in array.slice(c.words, 1, count(c.words))
	protected(w)
} else := "the script writes the allowlist or a reviewed snapshot" if {
	some r in c.redirects
	r.op in out_ops
	protected(r.target)
}

deny contains {"file": s.file, "line": c.line, "msg": accepts(c)} if {
	some s in scripts
	some c in s.commands
	accepts(c)
}

deny contains {"file": "Makefile", "line": r.via.line, "msg": sprintf("make %s runs preflight-accept (a prerequisite or a make call): CI would accept the snapshots itself", [r.root])} if {
	some r in input.gate.runs
	r.target == "preflight-accept"
}

deny contains {"file": "Makefile", "line": a.line, "msg": "the Makefile sets UPDATE_PREFLIGHT outside preflight-accept: the preflight would rewrite the reviewed snapshots instead of comparing with them"} if {
	some a in input.makefile.assignments
	a.name == "UPDATE_PREFLIGHT"
	a.target != "preflight-accept"
}

# An env: of any workflow, at any level.
deny contains {"file": w.file, "line": e.line, "msg": "env UPDATE_PREFLIGHT makes the preflight rewrite the reviewed snapshots instead of comparing with them"} if {
	some w in input.workflows
	some e in workflow_envs(w)
	is_object(e.value)
	"UPDATE_PREFLIGHT" in object.keys(e.value)
}

workflow_envs(w) := array.concat(
	[w.top.env | w.top.env],
	array.concat([j.keys.env | some j in w.jobs; j.keys.env], [s.keys.env | some j in w.jobs; some s in j.steps; s.keys.env]),
)
