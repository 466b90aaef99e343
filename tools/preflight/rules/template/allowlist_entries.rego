# METADATA
# title: Every allowlist entry has a kind, a reason and still matches
# related_resources:
#   - ref: https://docs.zizmor.sh/usage/#ignoring-results
# custom:
#   id: PS-BOOK-002
#   danger: an allowlist entry without a reason, of an unknown kind or for something no longer there hides the next finding of its kind.
#   fix: give the reason, fix the kind, or remove the entry
package preflight.rules.allowlist_entries

import data.preflight.rules.stateful_replaced

# input.allowlist_entries are tools/preflight/allowlist.yaml's entries as
# written, reason or not. The IAM rules tell an entry of theirs (reach,
# external-access) that acknowledges nothing, and the suppressions one of
# kind finding.
kinds := ["public-route", "replacement", "reach", "external-access", "finding"]

route_form := `^(GET|PUT|POST|DELETE|OPTIONS|HEAD|PATCH|ANY) /\S*$`

deny contains finding(e, "has no reason: an exception nobody explained allows nothing", "say in reason why the exception is meant, or remove the entry") if {
	some e in input.allowlist_entries
	e.reason == ""
}

deny contains finding(e, "repeats an earlier entry", "remove it") if {
	some e in input.allowlist_entries
	some x in input.allowlist_entries
	x.n < e.n
	[x.kind, x.what] == [e.kind, e.what]
}

deny contains finding(e, sprintf("has kind %q: the kinds are %s", [e.kind, concat(", ", kinds)]), "fix the kind") if {
	some e in input.allowlist_entries
	not e.kind in kinds
}

deny contains finding(e, `names no route: what is "METHOD /path", as the template declares it`, "write the route as METHOD /path") if {
	some e in public_routes
	not regex.match(route_form, e.what)
}

deny contains finding(e, "is stale: no variant of the template has this route", "remove the entry") if {
	some e in public_routes
	regex.match(route_form, e.what)
	not route(e.what)
}

deny contains finding(e, "is stale: the route has the authorizer in every variant, so the entry allows nothing now and would let it lose the authorizer unseen", "remove the entry") if {
	some e in public_routes
	route(e.what)
	not open_route(e.what)
}

deny contains finding(e, "is stale: no stateful resource of the template or of the reference has this logical id", "remove the entry") if {
	some e in input.allowlist_entries
	e.kind == "replacement"
	not stateful(e.what)
}

finding(e, msg, fix) := {"file": "tools/preflight/allowlist.yaml", "line": e.line, "msg": sprintf("entry %d (%s %q): %s", [e.n, e.kind, e.what, msg]), "fix": fix}

public_routes contains e if {
	some e in input.allowlist_entries
	e.kind == "public-route"
}

route(name) if {
	some s in input.stacks
	some api in s.apis
	some rt in api.routes
	rt.name == name
}

open_route(name) if {
	some s in input.stacks
	some api in s.apis
	some rt in api.routes
	rt.name == name
	not rt.authorized
}

stateful(id) if {
	some s in input.stacks
	stateful_replaced.types[s.resources[id].type]
}

stateful(id) if {
	some env in input.stateful.environments
	env[id]
}
