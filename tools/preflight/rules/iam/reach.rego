# METADATA
# title: Every role reaches only its own stacks
# related_resources:
#   - ref: https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#grant-least-privilege
#   - ref: https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_condition-keys.html
# custom:
#   id: PS-IAM-001
#   danger: a role or boundary that may change another environment's, app's or account's resources (asked of the IAM policy evaluator, in every context its conditions could be met in) lets a bug or a stolen credential reach them.
#   fix: narrow the Resource (or add the Condition) of the statement that allows it to this stack's names
package preflight.rules.reach

# input.access.reach: the requests the evaluator allows on targets outside
# the subject's own stacks (the other environment's, another app's, another
# account's), each {"subject", "action", "level", "target", "arn", "when"}:
# "when" names the condition keys the context brought that allowed it
# (tools/preflight/conditions.go, hiddenGrants): a statement whose
# Condition names a key the questions do not set (aws:RequestedRegion,
# aws:CalledVia, aws:PrincipalTag/..., aws:ResourceTag/...) is asked in
# every context that could satisfy the key, for "the key is not available
# in every request context" and most are the caller's to send (AWS global
# condition context keys, the second source above). Reading outside (AWS's Read
# and List levels: CodeDeploy's DescribeAlarms, which AWS's own policy for
# it grants on every alarm) is access like any other, kept in the reviewed
# snapshot; changing anything outside is refused, unless allowlist.yaml
# names the subject's service (kind reach) with its reason.
changed := [r | some r in input.access.reach; not r.level in {"Read", "List"}]

service(action) := split(action, ":")[0]

# key(r) is "<variant> <subject> <service>", as allowlist.yaml names it.
key(r) := sprintf("%s %s", [r.subject, service(r.action)])

acknowledged := {e.what | some e in input.allowlist; e.kind == "reach"}

accepted(r) if key(r) in acknowledged

widening contains r if {
	some r in changed
	not accepted(r)
}

# The services of each subject refused ("<variant> <subject> <service>"),
# whose access in its own stacks PS-IAM-002 leaves to this rule.
refused := {key(r) | some r in widening}

subject(name) := s if {
	some s in input.access.subjects
	s.name == name
}

when(r) := sprintf(" when %s", [r.when]) if r.when != ""

else := ""

problem contains {"kind": "reach", "subject": n, "text": sprintf("reaches beyond its own stacks: %s", [by_service(reqs)]), "fix": ""} if {
	some n in {r.subject | some r in widening}
	reqs := sort({sprintf("%s on %s (%s)%s", [r.action, r.target, r.arn, when(r)]) | some r in widening; r.subject == n})
}

# What cannot be enumerated cannot be shown to stay within the stacks.
problem contains {"kind": sprintf("notaction %v", [st.Sid]), "subject": s.name, "text": sprintf("statement %v allows NotAction, every action but some", [st.Sid]), "fix": "name the actions it needs in Action"} if {
	some s in input.access.subjects
	some st in s.statements
	st.Effect == "Allow"
	st.NotAction
}

problem contains {"kind": sprintf("every %v", [a]), "subject": s.name, "text": sprintf("statement %v allows %v, every action of every service", [st.Sid, a]), "fix": "name the actions it needs"} if {
	some s in input.access.subjects
	some st in s.statements
	st.Effect == "Allow"
	some a in actions(st)
	not contains(a, ":")
}

problem contains {"kind": sprintf("unknown %s", [svc]), "subject": s.name, "text": sprintf("names the service %s, which AWS's service reference does not know", [svc]), "fix": "correct the action's prefix"} if {
	some s in input.access.subjects
	some svc in s.unknown_services
}

problem contains {"kind": "error", "subject": n, "text": sprintf("the evaluator cannot read %s on %s: %s", [e.action, e.arn, e.error]), "fix": "correct the policy"} if {
	some n in {e.subject | some e in input.access.errors}
	e := sort([x | some x in input.access.errors; x.subject == n])[0]
}

actions(st) := st.Action if is_array(st.Action)

else := [st.Action]

# One finding a role or boundary and kind of problem, for every variant
# that has it, told as the first variant sees it, on the line of the file a
# person edits.
deny contains finding(place, sort({p.subject | some p in problem; same(p, place)})) if {
	some place in {[s.file, s.id, p.kind] | some p in problem; s := subject(p.subject)}
}

same(p, [file, id, kind]) if {
	p.kind == kind
	s := subject(p.subject)
	s.file == file
	s.id == id
}

finding([file, id, kind], names) := f if {
	p := [q | some q in problem; same(q, [file, id, kind]); q.subject == names[0]][0]
	variants := concat(", ", [split(n, " ")[0] | some n in names])
	f := {"file": file, "line": line_of(subject(names[0])), "msg": sprintf("%s (%s): %s", [id, variants, p.text]), "fix": p.fix}
}

line_of(s) := r.line if {
	some st in input.stacks
	st.variant == s.variant
	st.file == s.file
	not st.probe
	r := st.resources[s.id]
} else := 0

# An entry that acknowledges nothing of a variant asked is stale: it would
# silently accept the next reach of its kind.
deny contains {"file": "tools/preflight/allowlist.yaml", "line": 0, "msg": sprintf("reach \"%s\": is stale: that role reaches nothing of that service outside its stacks", [e.what]), "fix": "remove the entry"} if {
	some e in input.allowlist
	e.kind == "reach"
	split(e.what, " ")[0] in {v | some v in input.access.variants}
	not used(e.what)
}

used(what) if what in changing

# The services of each subject that change something outside its stacks
# ("<variant> <subject> <service>"), accepted or not.
changing := {key(r) | some r in changed}

by_service(reqs) := concat(", ", [sprintf("%s (%d, first %s)", [svc, count(of), of[0]]) |
	some svc in sort({split(r, ":")[0] | some r in reqs})
	of := [r | some r in reqs; split(r, ":")[0] == svc]
])
