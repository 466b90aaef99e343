# METADATA
# title: Each role is assumed by its own principal alone
# related_resources:
#   - ref: https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-trust-policy
# custom:
#   id: PS-IAM-003
#   danger: a trust policy that admits another principal, account, organization or workflow (asked of the IAM policy evaluator) lets it act as the role.
#   fix: make the trust policy name the one intended principal, and pin its conditions to exact values
package preflight.rules.trust

# input.access.roles: each role of the variants with the principals that
# use it (users: a function's Role is Lambda's, a deployment group's
# ServiceRoleArn CodeDeploy's, the API Gateway account's CloudWatchRoleArn
# API Gateway's, pipeline/roles.yaml's by tools/preflight/trust.go's
# pipelineAssumers), and for a role one principal uses: its assumer (the
# principal, the action it calls, the context its request carries), the
# evaluator's answer to that request (intended), and every other request
# asked that the trust policy admits or the evaluator could not read
# (admitted: each with its principal, action, context and, where a
# condition let it in, the caller and the keys it brought).

# The intended request: the assumer's principal and action, with every key
# of its context as it sends it. Anything else admitted is an outsider.
intended(a, r) if {
	a.principal == r.assumer.principal
	a.action == r.assumer.action
	every k, v in sent(r.assumer) {
		object.get(a.context, k, null) == v
	}
}

sent(x) := x.context if is_object(x.context)

else := {}

outsider(r) := [a | some a in r.admitted; not intended(a, r)]

problem contains {"kind": "users", "role": r, "text": "no rule says who assumes this role", "fix": "use it as a function's Role, a deployment group's ServiceRoleArn or the API Gateway account's CloudWatchRoleArn, or (pipeline/roles.yaml) add it to pipelineAssumers in tools/preflight/trust.go"} if {
	some r in input.access.roles
	count(r.users) == 0
}

problem contains {"kind": "users", "role": r, "text": sprintf("one role is used by %s", [concat(" and ", r.users)]), "fix": "give each service a role of its own"} if {
	some r in input.access.roles
	count(r.users) > 1
}

problem contains {"kind": "intended", "role": r, "text": sprintf("its trust policy does not let %s call %s (the evaluator: %s %s)", [r.assumer.principal, r.assumer.action, r.intended.result, r.intended.error]), "fix": "allow exactly that principal and action in AssumeRolePolicyDocument"} if {
	some r in input.access.roles
	r.intended
	r.intended.result != "Allowed"
}

problem contains {"kind": "admits", "role": r, "text": admits(r, outs), "fix": fix(outs)} if {
	some r in input.access.roles
	outs := outsider(r)
	count(outs) > 0
}

# Who is admitted, one principal (with its actions) at a time: the intended
# principal's other actions first, then accounts' principals, web
# identities and services, in the order they were asked.
admits(r, outs) := sprintf("its trust policy admits %s%s; only %s may assume it, with %s", [concat(", ", shown), more, r.assumer.principal, r.assumer.action]) if {
	whos := {who(a, r) | some a in outs}
	order := sort([[rank(w, r), min({a.n | some a in outs; who(a, r) == w}), w] | some w in whos])
	shown := [sprintf("%s (%s)", [o[2], concat(", ", sort({a.action | some a in outs; who(a, r) == o[2]}))]) | some o in array.slice(order, 0, 4)]
	more := extra(count(order))
}

extra(n) := sprintf(" and %d more principals", [n - 4]) if n > 4

else := ""

who(a, r) := sprintf("%s%s", [named(a, r), unread(a)])

named(a, r) := sprintf("%s (%s)", [a.actor, a.brought]) if a.brought != ""

else := sprintf("%s (sub %v, aud %v)", [a.principal, a.context[sub], object.get(a.context, aud, null)]) if sent(a)[sub]

else := sprintf("%s (for account %v)", [a.principal, sent(a)["aws:SourceAccount"]]) if sent(a)["aws:SourceAccount"] != r.account

else := a.principal

sub := "token.actions.githubusercontent.com:sub"

aud := "token.actions.githubusercontent.com:aud"

unread(a) := sprintf(" [the evaluator could not read the policy: %s]", [a.error]) if a.result == "Error"

else := ""

rank(w, r) := 0 if w == r.assumer.principal

else := 1 if {
	contains(w, ":iam::")
	not contains(w, "-provider/")
}

else := 1 if contains(w, ":sts::")

else := 2 if contains(w, "(sub ")

else := 2 if contains(w, "-provider/")

else := 3

fix(outs) := "make the Condition pin the one intended principal (StringEquals or ArnEquals on its exact value; no organization-, account- or name-wide key, no wildcard, no ...IfExists, Null or ForAllValues, which admit a request without the key), or remove the statement that admits them" if {
	some a in outs
	a.brought != ""
}

else := "remove the statement (or the principal, action or condition) that admits them from AssumeRolePolicyDocument"

# One finding a role and kind of problem, for every variant that has it,
# told as the first variant sees it, on the role's line.
deny contains f if {
	some place in {[p.role.file, p.role.id, p.kind] | some p in problem}
	ps := [p | some p in problem; [p.role.file, p.role.id, p.kind] == place]
	variants := sort({p.role.variant | some p in ps})
	p := [q | some q in ps; q.role.variant == variants[0]][0]
	f := {"file": place[0], "line": line_of(p.role), "msg": sprintf("%s (%s): %s", [place[1], concat(", ", variants), p.text]), "fix": p.fix}
}

line_of(r) := res.line if {
	some st in input.stacks
	st.variant == r.variant
	st.file == r.file
	not st.probe
	res := st.resources[r.id]
} else := 0
