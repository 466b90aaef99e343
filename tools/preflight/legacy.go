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
	idReach          = "PS-IAM-001"
	idTrust          = "PS-IAM-003"
	idResourcePolicy = "PS-IAM-004"
)

const ruleSuppression = "suppression"
