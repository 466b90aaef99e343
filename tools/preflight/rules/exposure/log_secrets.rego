# METADATA
# title: No secret a request carries reaches a log
# related_resources:
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html
# custom:
#   id: PS-EXP-001
#   danger: an access log format, a data trace or a WAF log that records a token or a header hands it to whoever reads the logs.
#   fix: log no Authorization header, token or authorizer field beyond the subject; redact the header in WAF logs
package preflight.rules.log_secrets

import data.preflight.lib.gateway
import data.preflight.lib.stacks

deny := stacks.told(found)

# An access log format's variables are API Gateway's $context variables
# ("Variables for access logging"): $context.identity.apiKey is the
# caller's API key, $context.authorizer.claims.* the token's claims and
# $context.authorizer.<key> whatever the Lambda authorizer copies into its
# context; $input, $method.request and $request name the request's own
# headers, query and body. They are case-sensitive; any case is refused.
found contains {"variant": s.variant, "file": s.file, "line": st.line, "id": st.id, "msg": msg, "fix": "log only the gateway's own $context facts (the caller is $context.authorizer.principalId)"} if {
	some s in input.stacks
	some st in gateway.stages(s)
	some v in gateway.variables(st.format)
	what := secret(v[1], v[2])
	msg := sprintf("the access log format names %s, %s: it would reach the access log", [v[0], what])
}

# DataTraceEnabled (full request and response logs) "can result in logging
# sensitive data. We recommend that you don't enable this option for
# production APIs" (API reference, MethodSetting); execution logging alone
# redacts authorization headers.
found contains {"variant": s.variant, "file": s.file, "line": st.line, "id": st.id, "msg": msg, "fix": "leave DataTraceEnabled off (execution logging at ERROR or INFO alone redacts the Authorization header); for a 502, read the access log's $context.integration fields and the function's log"} if {
	some s in input.stacks
	some st in gateway.stages(s)
	count(st.data_trace) > 0
	msg := sprintf("turns on full request and response logs (DataTraceEnabled, %s): API Gateway writes request and response bodies and the authorizer's data into its execution log, which AWS warns can log sensitive data", [concat(", ", st.data_trace)])
}

# AWS WAF's logs hold every header of a request (httpRequest.headers)
# unless RedactedFields names it (SingleHeader, whose name "isn't case
# sensitive").
found contains {"variant": s.variant, "file": s.file, "line": r.line, "id": id, "msg": msg, "fix": "add RedactedFields: [{SingleHeader: {Name: authorization}}]"} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::WAFv2::LoggingConfiguration"
	not redacted(r)
	msg := "logs the web ACL's requests without redacting the Authorization header: AWS WAF logs every header of a request, the bearer token among them"
}

redacted(r) if {
	some f in stacks.as_list(r.properties.RedactedFields)
	lower(sprintf("%v", [f.SingleHeader.Name])) == "authorization"
}

secret(root, _) := "the request's own headers, query or body, the bearer token among them" if lower(root) in {"input", "method", "request"}

secret(root, rest) := context_secret(rest, lower(rest)) if lower(root) == "context"

context_secret(rest, p) := "the caller's API key, a credential" if {
	p == ".identity.apikey"
} else := "headers of the request or the answer" if {
	some prefix in [".requestoverride", ".responseoverride"]
	startswith(p, prefix)
} else := "a claim of the caller's token" if {
	startswith(p, ".authorizer.claims")
} else := "a key of the Lambda authorizer's context, whatever the authorizer copies there from the token (functions/authorizer returns only sub)" if {
	startswith(p, ".authorizer.")
	key := substring(rest, count(".authorizer."), -1)
	not lower(key) in gateway_fields
	key != "sub"
}

# gateway_fields are the $context.authorizer variables that are API
# Gateway's own record of the authorizer, not a value the token carries;
# sub is the verified subject functions/authorizer returns.
gateway_fields := {"principalid", "status", "latency", "error", "integrationlatency", "integrationstatus", "requestid"}
