package preflight.rules.allowlist_entries_test

import data.preflight.rules.allowlist_entries

facts(entries) := {"allowlist_entries": entries, "stateful": {"environments": {"prod": {"OldTable": {"type": "AWS::DynamoDB::Table"}}}}, "stacks": [{
	"variant": "dev", "file": "template.yaml",
	"resources": {"PlantsTable": {"type": "AWS::DynamoDB::Table"}},
	"apis": [{"id": "PlantsApi", "routes": [{"name": "POST /plants", "authorized": true}, {"name": "GET /health", "authorized": false}]}],
}]}

entry(kind, what, reason) := {"n": 1, "line": 30, "kind": kind, "what": what, "reason": reason}

msgs(entries) := m if {
	m := {f.msg | some f in allowlist_entries.deny} with input as facts(entries)
}

test_refuses_no_reason if {
	some f in allowlist_entries.deny with input as facts([entry("replacement", "PlantsTable", "")])
	f.file == "tools/preflight/allowlist.yaml"
	f.line == 30
	f.msg == `entry 1 (replacement "PlantsTable"): has no reason: an exception nobody explained allows nothing`
}

test_refuses_a_repeat if {
	msgs([entry("reach", "dev X s3", "a"), object.union(entry("reach", "dev X s3", "b"), {"n": 2})]) == {`entry 2 (reach "dev X s3"): repeats an earlier entry`}
}

test_refuses_an_unknown_kind if {
	msgs([entry("public", "GET /health", "x")]) == {`entry 1 (public "GET /health"): has kind "public": the kinds are public-route, replacement, reach, external-access, finding`}
}

test_refuses_no_route if {
	some m in msgs([entry("public-route", "/health", "x")])
	contains(m, "names no route")
}

test_refuses_a_stale_route if {
	some m in msgs([entry("public-route", "GET /nowhere", "x")])
	contains(m, "no variant of the template has this route")
}

test_refuses_a_guarded_route if {
	some m in msgs([entry("public-route", "POST /plants", "x")])
	contains(m, "the route has the authorizer in every variant")
}

test_refuses_a_stale_replacement if {
	some m in msgs([entry("replacement", "Gone", "x")])
	contains(m, "no stateful resource of the template or of the reference")
}

test_passes_the_entries_that_match if {
	count(msgs([
		entry("public-route", "GET /health", "a load balancer's check"),
		object.union(entry("replacement", "PlantsTable", "migrated"), {"n": 2}),
		object.union(entry("replacement", "OldTable", "a rename"), {"n": 3}),
		object.union(entry("external-access", "dev X *", "told by its rule"), {"n": 4}),
	])) == 0
}
