# METADATA
# title: Throttles stay within the account's API Gateway quota
# related_resources:
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-request-throttling.html
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html
# custom:
#   id: PS-REL-007
#   danger: a stage or usage plan without a throttle, or with one above the account's quota (10,000 requests a second, a burst of 5,000, shared by every API of the account and region), lets one API's flood take the whole account's quota and answer 429 to every other API there.
#   fix: throttle every stage's /* * method setting, and every usage plan, at most at the account's quota (ThrottlingRateLimit, ThrottlingBurstLimit in samconfig.toml)
package preflight.rules.throttle_quota

import data.preflight.lib.stacks

# API Gateway's default account quota per Region (the lower one of some
# Regions aside).
quota := {"rate": 10000, "burst": 5000}

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "MethodSettings"), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::ApiGateway::Stage"
	not throttled(r.properties)
	msg := sprintf("%s: no throttle on every method (MethodSettings ResourcePath /* HttpMethod * with ThrottlingRateLimit and ThrottlingBurstLimit): the stage takes the account's whole quota of %v requests a second", [id, quota.rate])
}

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "MethodSettings"), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::ApiGateway::Stage"
	some i, m in r.properties.MethodSettings
	written := object.get(r.raw, ["MethodSettings", i], {})
	over := beyond([
		["rate", object.get(m, "ThrottlingRateLimit", 0), quota.rate, stacks.param_source(s, object.get(written, "ThrottlingRateLimit", {}))],
		["burst", object.get(m, "ThrottlingBurstLimit", 0), quota.burst, stacks.param_source(s, object.get(written, "ThrottlingBurstLimit", {}))],
	])
	count(over) > 0
	msg := sprintf("%s: method setting %s %s throttles at %s, beyond the account's quota for every API in the Region (%v a second, a burst of %v): one API's flood answers 429 to all the others", [id, m.ResourcePath, m.HttpMethod, concat(" and ", over), quota.rate, quota.burst])
}

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "Throttle"), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::ApiGateway::UsagePlan"
	over := beyond([["rate", object.get(r.properties.Throttle, "RateLimit", 0), quota.rate, ""], ["burst", object.get(r.properties.Throttle, "BurstLimit", 0), quota.burst, ""]])
	count(over) > 0
	msg := sprintf("%s: the usage plan throttles at %s, beyond the account's quota (%v a second, a burst of %v)", [id, concat(" and ", over), quota.rate, quota.burst])
}

throttled(p) if {
	some m in p.MethodSettings
	m.ResourcePath == "/*"
	m.HttpMethod == "*"
	stacks.number(m.ThrottlingRateLimit) >= 0
	stacks.number(m.ThrottlingBurstLimit) >= 0
}

# beyond are the limits above the quota, each with where it comes from.
beyond(limits) := [x |
	some [what, v, most, from] in limits
	n := stacks.number(v)
	n > most
	x := sprintf("%s %v%s", [what, n, from])
]
