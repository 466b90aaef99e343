# METADATA
# title: Resource policies admit no outsider
# related_resources:
#   - ref: https://docs.aws.amazon.com/IAM/latest/UserGuide/access-analyzer-resources.html
# custom:
#   id: PS-IAM-004
#   danger: a resource policy (a bucket's, a queue's, a Lambda permission, an API's) that lets another account or the public use a resource of the stacks.
#   fix: name only this account's principals, and services for this stack's own resources, or acknowledge it in tools/preflight/allowlist.yaml (kind external-access) with a reason
package preflight.rules.resource_policy

# input.access.resources.grants: each request a resource policy of the
# stacks allows (asked of the IAM evaluator by every principal the trust
# rule asks and every principal the policy names, in every context its
# conditions could match: tools/preflight/resourcepolicy.go), with its
# caller. IAM Access Analyzer's external access, offline: who is inside is
# a principal of this account, and a service acting for a resource of this
# variant's stacks (its aws:SourceArn one of theirs); everyone else is
# outside: another account, a service for another account's resource or
# for none it names (Lambda's AddPermission: "If you grant permission to a
# service principal without specifying the source, other accounts could
# potentially configure resources in their account to invoke your Lambda
# function"), a web identity. Access from another account that needs no
# key of the caller's choosing that tells who or where it is, is public.
inside(g) if {
	g.kind == "iam"
	g.account == g.own_account
}

inside(g) if {
	g.kind == "service"
	g.source != ""
}

what(g) := sprintf("%s %s %s", [g.policy.variant, g.policy.resource, g.caller])

accepted(g) if {
	some e in input.allowlist
	e.kind == "external-access"
	e.what == what(g)
}

outsider contains g if {
	some g in input.access.resources.grants
	not inside(g)
	not accepted(g)
}

# The snapshot's lines of the access refused here, which PS-IAM-002 leaves
# to this rule.
refused := {g.line | some g in outsider}

# The keys that tell who or where a caller is, as Access Analyzer counts
# them.
restricting(k) if strings.any_prefix_match(lower(k), ["aws:principal", "aws:source"])

restricting(k) if contains(split(lower(k), ":")[0], ".")

restricting(k) if lower(k) in {"aws:userid", "aws:username", "aws:federatedprovider", "sts:externalid", "kms:calleraccount"}

keys(g) := count([k | some k in g.chose; restricting(k)])

rank(g) := 1 if g.named

else := 0 if {
	g.kind == "iam"
	keys(g) == 0
}

else := 2 if g.kind == "iam"

else := 3

desc(g) := concat("", [who(g), brought(g), unsourced(g)])

who(g) := g.caller if g.named

else := "any principal of another account (public)" if rank(g) == 0

else := "another account's principals" if g.kind == "iam"

else := g.label

brought(g) := sprintf(" (%s)", [g.brought]) if g.brought != ""

else := ""

unsourced(g) := " for any account's resource" if {
	g.kind == "service"
	not g.sourced
} else := ""

problem contains {"kind": "outsider", "policy": p, "text": text, "fix": fix} if {
	some p in {g.policy | some g in outsider}
	gs := [g | some g in outsider; g.policy == p]
	callers := sort({[rank(g), g.caller] | some g in gs})
	shown := [sprintf("%s (%s)", [best(gs, c), by_service(sort({g.action | some g in gs; [rank(g), g.caller] == c}))]) | some c in array.slice(callers, 0, 3)]
	kind := access_kind(callers[0][0])
	text := sprintf("its resource policy gives %s to %s: %s%s; only this account's principals, and services for this stack's own resources, may use it (the rule of resource policies, IAM Access Analyzer's external access)", [kind, p.resource, concat(", ", shown), more(count(callers))])
	fix := sprintf("remove the statement or narrow its Principal and Condition to this account, or to this stack's own resources by aws:SourceArn; if the access is meant, name it in tools/preflight/allowlist.yaml (kind external-access, what \"%s %s %s\", a reason)", [p.variant, p.resource, callers[0][1]])
}

# best is the caller's request that needs the fewest keys of its choosing.
best(gs, c) := sort([[keys(g), desc(g)] | some g in gs; [rank(g), g.caller] == c])[0][1]

access_kind(r) := "public access" if r == 0

else := "external access"

more(n) := sprintf(", and %d more callers", [n - 3]) if n > 3

else := ""

problem contains {"kind": sprintf("unread %s", [u.property]), "policy": u, "text": sprintf("carries a resource policy (%s of %s) that the preflight cannot ask who may use", [u.property, u.type]), "fix": "teach policyReaders in tools/preflight/resourcepolicy.go to read it, with the ARNs its requests name"} if {
	some u in input.access.resources.unread
}

problem contains {"kind": "untaken", "policy": u, "text": sprintf("guards %v, which no action of %s takes by AWS's service reference", [u.arns, u.service]), "fix": "correct the resource the policy is attached to"} if {
	some u in input.access.resources.untaken
}

problem contains {"kind": "error", "policy": p, "text": sprintf("the evaluator cannot read %s on %s: %s", [e.action, e.arn, e.error]), "fix": "correct the policy"} if {
	some p in {e.policy | some e in input.access.resources.errors}
	e := sort([x | some x in input.access.resources.errors; x.policy == p])[0]
}

# One finding a policy and kind of problem, for every variant that has it,
# told as the first variant sees it, on the policy's line.
deny contains f if {
	some place in {[p.policy.file, p.policy.id, p.kind] | some p in problem}
	ps := [p | some p in problem; [p.policy.file, p.policy.id, p.kind] == place]
	variants := sort({p.policy.variant | some p in ps})
	p := [q | some q in ps; q.policy.variant == variants[0]][0]
	f := {"file": place[0], "line": line_of(p.policy), "msg": sprintf("%s (%s): %s", [place[1], concat(", ", variants), p.text]), "fix": p.fix}
}

line_of(p) := r.line if {
	some st in input.stacks
	st.variant == p.variant
	st.file == p.file
	not st.probe
	r := st.resources[p.id]
} else := 0

# An entry that names no access of a variant asked is stale.
deny contains {"file": "tools/preflight/allowlist.yaml", "line": 0, "msg": sprintf("external-access \"%s\": is stale: no resource policy of that variant gives that access", [e.what]), "fix": "remove the entry"} if {
	some e in input.allowlist
	e.kind == "external-access"
	split(e.what, " ")[0] in {v | some v in input.access.variants}
	not used(e.what)
}

used(w) if {
	some g in input.access.resources.grants
	not inside(g)
	what(g) == w
}

by_service(reqs) := concat(", ", [sprintf("%s (%d, first %s)", [svc, count(of), of[0]]) |
	some svc in sort({split(r, ":")[0] | some r in reqs})
	of := [r | some r in reqs; split(r, ":")[0] == svc]
])
