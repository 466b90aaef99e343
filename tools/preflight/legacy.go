package preflight

// The rules still written in Go, until each is ported to a Rego file of
// the book. Each has its ID and METADATA here, so that its findings carry
// the ID, its file and line, and docs/security.md lists it beside the Rego
// rules.

import ()

// goRules are the rules in Go, by the name their findings start with.
var goRules = map[string]Rule{
	ruleSuppression: {ID: "PS-BOOK-001", Title: "Every acceptance has a reason and still matches", File: "suppress.go",
		Danger: "an acceptance without a reason hides a finding nobody explained; one that matches nothing any more would silently accept the next finding of its kind.",
		Fix:    "give the reason, or remove the acceptance",
		Source: "https://docs.zizmor.sh/usage/#ignoring-results"},
	// The stacks' rules (stacks.go): findings carry their ID from where
	// they are made.
	idPermission: {ID: idPermission, Title: "Lambda permissions are API Gateway's, for this API's routes", File: "template.go",
		Danger: "a Lambda permission for another principal, service, API or route lets someone invoke a function past the gateway's authorizer.",
		Fix:    "remove it; API Gateway's permissions come from SAM's Api events and Auth.Authorizers",
		Source: "https://docs.aws.amazon.com/lambda/latest/dg/access-control-resource-based.html"},
	idStateful: {ID: idStateful, Title: "Stateful resources are not replaced unseen", File: "template.go",
		Danger: "a change to a create-only property, a type or a logical id of a table or a user pool makes CloudFormation replace it, and its data is gone.",
		Fix:    "keep the property; if the replacement is meant, acknowledge it in tools/preflight/allowlist.yaml (kind replacement) and regenerate tools/preflight/testdata/stateful.json",
		Source: "https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-updating-stacks-update-behaviors.html"},
	idAllowlist: {ID: idAllowlist, Title: "Every allowlist entry has a kind, a reason and still matches", File: "template.go",
		Danger: "an allowlist entry without a reason, of an unknown kind or for something no longer there hides the next finding of its kind.",
		Fix:    "give the reason, fix the kind, or remove the entry",
		Source: "https://docs.zizmor.sh/usage/#ignoring-results"},
	idLogSecrets: {ID: idLogSecrets, Title: "No secret a request carries reaches a log", File: "exposure.go",
		Danger: "an access log format, a data trace or a WAF log that records a token or a header hands it to whoever reads the logs.",
		Fix:    "log no Authorization header, token or authorizer field beyond the subject; redact the header in WAF logs",
		Source: "https://docs.aws.amazon.com/apigateway/latest/developerguide/set-up-logging.html"},
	idKeySource: {ID: idKeySource, Title: "The authorizer's keys are its issuer's own", File: "exposure.go",
		Danger: "a JWKS URL outside its issuer's https URL lets whoever controls that URL sign tokens the authorizer accepts.",
		Fix:    "point AUTH_JWKS_URL at the issuer's own jwks.json, under its https URL",
		Source: "https://datatracker.ietf.org/doc/html/rfc8725#section-3.10"},
	idEvidence: {ID: idEvidence, Title: "The evidence an incident needs stays at the floor", File: "exposure.go",
		Danger: "logs kept less than the floor, filtered below info, untraced functions, access logs without request ids or alarms that page nobody leave an incident without evidence.",
		Fix:    "keep docs/deploy.md's floor (\"What an incident needs\")",
		Source: "https://docs.aws.amazon.com/wellarchitected/latest/security-pillar/sec_detect_investigate_events_app_service_logging.html"},
	idReach: {ID: idReach, Title: "Every role reaches only its own stacks", File: "access.go",
		Danger: "a role or boundary that may act on another environment's, app's or account's resources (asked of the IAM policy evaluator) lets a bug or a stolen credential reach them.",
		Fix:    "narrow the Resource (or add the Condition) of the statement that allows it to this stack's names",
		Source: "https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#grant-least-privilege"},
	idTrust: {ID: idTrust, Title: "Each role is assumed by its own principal alone", File: "trust.go",
		Danger: "a trust policy that admits another principal, account, organization or workflow (asked of the IAM policy evaluator) lets it act as the role.",
		Fix:    "make the trust policy name the one intended principal, and pin its conditions to exact values",
		Source: "https://docs.aws.amazon.com/IAM/latest/UserGuide/id_roles_terms-and-concepts.html#iam-term-trust-policy"},
	idResourcePolicy: {ID: idResourcePolicy, Title: "Resource policies admit no outsider", File: "resourcepolicy.go",
		Danger: "a resource policy (a bucket's, a queue's, a Lambda permission, an API's) that lets another account or the public use a resource of the stacks.",
		Fix:    "name only this account's principals, and services for this stack's own resources, or acknowledge it in tools/preflight/allowlist.yaml (kind external-access) with a reason",
		Source: "https://docs.aws.amazon.com/IAM/latest/UserGuide/access-analyzer-resources.html"},
}

// The IDs of the stacks' rules.
const (
	idPermission     = "PS-TPL-002"
	idStateful       = "PS-TPL-004"
	idAllowlist      = "PS-BOOK-002"
	idLogSecrets     = "PS-EXP-001"
	idKeySource      = "PS-EXP-003"
	idEvidence       = "PS-EXP-004"
	idReach          = "PS-IAM-001"
	idTrust          = "PS-IAM-003"
	idResourcePolicy = "PS-IAM-004"
)

// withID gives findings their rule's ID.
func withID(id string, fs []Finding) []Finding {
	for i := range fs {
		fs[i].ID = id
	}
	return fs
}

const ruleSuppression = "suppression"
