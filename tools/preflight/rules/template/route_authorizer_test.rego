package preflight.rules.route_authorizer_test

import data.preflight.rules.route_authorizer

stack(route, allowlist) := {"allowlist": allowlist, "stacks": [{"file": "template.yaml", "resources": {"PlantsApi": {"line": 12}}, "unread_apis": [], "apis": [{"id": "PlantsApi", "routes": [route]}]}]}

open_route := {"name": "GET /plants", "resource": "PlantsApi", "authorized": false, "instead": `security [{"NONE":[]}]`, "function": "CreatePlantFunction"}

test_refuses_a_route_without_the_authorizer if {
	some f in route_authorizer.deny with input as stack(open_route, [])
	f.line == 12
	f.msg == `PlantsApi GET /plants: has no authorizer (security [{"NONE":[]}]): anyone reaches CreatePlantFunction without a token`
}

test_refuses_an_api_it_cannot_read if {
	count(route_authorizer.deny) == 1 with input as {"allowlist": [], "stacks": [{"file": "template.yaml", "resources": {}, "apis": [], "unread_apis": [{"id": "OtherApi", "msg": "has its OpenAPI definition in S3"}]}]}
}

test_tells_the_fix_the_reader_gives_for_an_api_it_cannot_read if {
	some f in route_authorizer.deny with input as {"allowlist": [], "stacks": [{"file": "template.yaml", "resources": {"OtherApi": {"line": 7}}, "apis": [], "unread_apis": [{"id": "OtherApi", "msg": "has its OpenAPI definition in S3", "fix": "define the API inline"}]}]}
	f.line == 7
	f.fix == "define the API inline"
}

test_refuses_a_route_another_route_is_allowed_for if {
	count(route_authorizer.deny) == 1 with input as stack(open_route, [{"kind": "public-route", "what": "GET /health", "reason": "a check"}])
}

test_passes_a_guarded_route if {
	count(route_authorizer.deny) == 0 with input as stack(object.union(open_route, {"authorized": true}), [])
}

test_passes_a_route_allowed_with_its_reason if {
	count(route_authorizer.deny) == 0 with input as stack(open_route, [{"kind": "public-route", "what": "GET /plants", "reason": "the catalogue is public"}])
}
