# METADATA
# title: Access logs follow every request
# related_resources:
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html
# custom:
#   id: PS-EXP-008
#   danger: a stage that with access logs on writes none, writes them outside the stack's log groups or without the request ids leaves an incident unable to follow a request from the client to the function.
#   fix: keep the stage's AccessLogSetting, to the stack's ApiAccessLogGroup, with docs/deploy.md's variables ("What an incident needs")
package preflight.rules.access_log

import data.preflight.lib.gateway
import data.preflight.lib.stacks

# Read on each variant's probe: the stack with ApiAccessLogs on. The format
# "must include at least $context.requestId or $context.extendedRequestId.
# As a best practice, include both"; docs/deploy.md's floor
# (input.evidence_floor.access_log) adds the integration's request id, the
# client's address and the status. The variables are case-sensitive.
deny := stacks.told(found)

found contains {"variant": s.variant, "file": s.file, "line": 0, "id": "Parameters", "msg": "the stack with ApiAccessLogs on and an AlarmTopicArn cannot be resolved: the evidence floor cannot be asked of it"} if {
	some s in input.stacks
	not s.probe
	s.file == "template.yaml"
	not probed(s.variant)
}

found contains {"variant": s.variant, "file": s.file, "line": st.line, "id": st.id, "msg": "writes no access log with ApiAccessLogs on: no request can be followed through the gateway"} if {
	some s in probes
	some st in gateway.stages(s)
	st.rest
	st.format == ""
}

found contains {"variant": s.variant, "file": s.file, "line": st.line, "id": st.id, "msg": msg, "fix": "send the access log to the stack's ApiAccessLogGroup"} if {
	some s in probes
	some st in gateway.stages(s)
	st.rest
	st.format != ""
	not trim_suffix(st.destination, ":*") in groups(s)
	msg := sprintf("writes its access log to %s, no log group of this stack: no retention of this stack holds it", [st.destination])
}

found contains {"variant": s.variant, "file": s.file, "line": st.line, "id": st.id, "msg": msg} if {
	some s in probes
	some st in gateway.stages(s)
	st.rest
	st.format != ""
	present := {concat("", ["$", v[1], v[2]]) | some v in gateway.variables(st.format)}
	missing := [f | some f in input.evidence_floor.access_log; not f in present]
	count(missing) > 0
	msg := sprintf("the access log format lacks %s: a request cannot be followed from the client to the function", [concat(", ", missing)])
}

probes contains s if {
	some s in input.stacks
	s.probe
}

probed(variant) if {
	some s in probes
	s.variant == variant
}

groups(s) := {sprintf("arn:%s:logs:%s:%s:log-group:%s", [s.partition, s.region, s.account, r.ref]) |
	some r in s.resources
	r.type == "AWS::Logs::LogGroup"
}
