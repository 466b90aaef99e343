# METADATA
# title: The gateway and the functions that serve the plants trace
# related_resources:
#   - ref: https://docs.aws.amazon.com/xray/latest/devguide/xray-services-apigateway.html
# custom:
#   id: PS-EXP-006
#   danger: a REST API stage without X-Ray tracing, or a function of /plants or an authorizer without active tracing, leaves an incident's trace with a gap where the request went.
#   fix: keep TracingEnabled true on the stage and Tracing Active on every function of /plants and every authorizer, in every environment
package preflight.rules.tracing

import data.preflight.lib.gateway
import data.preflight.lib.stacks

deny := stacks.told(found)

found contains {"variant": s.variant, "file": s.file, "line": st.line, "id": st.id, "msg": msg} if {
	some s in input.stacks
	some st in gateway.stages(s)
	st.rest
	not stacks.is_true(st.tracing)
	msg := sprintf("traces nothing with X-Ray (TracingEnabled %v): an incident's trace has no gateway", [st.tracing])
}

# PassThrough traces only what a caller asked to be sampled (Lambda API
# reference, TracingConfig). A function beside them (docs/deploy.md's
# health check) may trace or not: the floor is what the service's one
# operation needs.
found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg} if {
	some s in input.stacks
	some id in serving(s)
	r := s.resources[id]
	mode := object.get(r.properties, ["TracingConfig", "Mode"], "unset")
	mode != "Active"
	msg := sprintf("serves the plants without active tracing (TracingConfig Mode %v): an incident's trace stops before it", [mode])
}

# serving are the functions that serve the plants: the integration of a
# route under /plants, and every Lambda authorizer.
serving(s) := {id |
	some api in s.apis
	some id in array.concat([rt.function | some rt in api.routes; plants(rt.path)], api.authorizers)
	id != ""
}

plants(path) if path == "/plants"

plants(path) if startswith(path, "/plants/")
