package preflight

// The rules still written in Go, until each is ported to a Rego file of
// the book. Each has its ID and METADATA here, so that its findings carry
// the ID, its file and line, and docs/security.md lists it beside the Rego
// rules.

import (
	"regexp"
	"strconv"
	"strings"
)

// goRules are the rules in Go, by the name their findings start with.
var goRules = map[string]Rule{
	ruleSuppression: {ID: "PS-BOOK-001", Title: "Every acceptance has a reason and still matches", File: "suppress.go",
		Danger: "an acceptance without a reason hides a finding nobody explained; one that matches nothing any more would silently accept the next finding of its kind.",
		Fix:    "give the reason, or remove the acceptance",
		Source: "https://docs.zizmor.sh/usage/#ignoring-results"},
	ruleNeutralised: {ID: "PS-SH-001", Title: "Scripts keep set -e and pipefail", File: "workflow_shell.go",
		Danger: "a script (a run step, .ci/run, a Makefile recipe) that hides a failure (|| true, set +e, !, a trap that exits) lets a failing check pass.",
		Fix:    "drop what hides the failure; test a status with if where a failure is expected",
		Source: "https://www.gnu.org/software/bash/manual/html_node/The-Set-Builtin.html"},
	ruleCIRun: {ID: "PS-CI-001", Title: ".ci/run runs every check, and ci.yml runs .ci/run", File: "workflow_ci.go",
		Danger: ".ci/run without `set -euo pipefail`, or without plain top-level `make lint` and `make test`, or a ci.yml that does not run it unconditionally, lets CI pass without the checks.",
		Fix:    "keep `set -euo pipefail`, `make lint` and `make test` at the top level of .ci/run, and ci.yml's step `run: bash .ci/run` with no if",
		Source: "https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#jobsjob_idstepsif"},
	ruleMakefile: {ID: "PS-MK-001", Title: "make stops on the checks' failures", File: "workflow_makefile.go",
		Danger: "a - prefix, .IGNORE, -i or .SHELLFLAGS without -e and pipefail make make ignore a failing recipe line of the checks.",
		Fix:    "remove the -, .IGNORE or -i; keep `.SHELLFLAGS := -eu -o pipefail -c`",
		Source: "https://www.gnu.org/software/make/manual/html_node/Errors.html"},
	ruleUnpinnedFetch: {ID: "PS-SUP-001", Title: "Nothing fetched at run time runs unpinned", File: "runners.go",
		Danger: "a tool, package or script fetched by a floating version, a range or a pipe into a shell runs whatever its source serves when CI runs.",
		Fix:    "pin an exact version a registry checks (name==X.Y.Z, pkg@vX.Y.Z, npm ci), or a digest, or check a download's sha256 before running it",
		Source: "https://docs.zizmor.sh/audits/#adhoc-packages"},
	ruleGitHubEnv: {ID: "PS-WF-014", Title: "No event data in the environment files", File: "runners.go",
		Danger: "event data (a title, a branch name, a commit message) written to $GITHUB_ENV, $GITHUB_PATH or $GITHUB_OUTPUT can set LD_PRELOAD, PATH or an output that later steps run.",
		Fix:    "pass it to the step that needs it through env: and read it there as \"$NAME\"",
		Source: "https://docs.zizmor.sh/audits/#github-env"},
	ruleAWSCredential: {ID: "PS-CRED-003", Title: "Scripts make no AWS credential of their own", File: "credentials.go",
		Danger: "a script that sets AWS keys, runs `aws configure`, calls STS for a credential or writes a profile file acts with a credential that is not the environment's OIDC role.",
		Fix:    "take the environment's role with aws-actions/configure-aws-credentials (OIDC) in the dev or prod job; no other credential",
		Source: "https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html"},
	ruleChecksGate: {ID: "PS-CI-002", Title: "The checks still gate", File: "gate.go",
		Danger: "a trigger filter, an env value from the repository's settings or a change to what the checks job runs lets a change merge without every check, or with one that fails.",
		Fix:    "keep ci.yml's triggers unfiltered, its env literal, and every package tested and every lint step run",
		Source: "https://docs.github.com/en/actions/reference/workflows-and-actions/workflow-syntax#onpushpull_requestpull_request_targetpathspaths-ignore"},
	ruleReviewerAccept: {ID: "PS-CI-003", Title: "Only a person accepts the reviewed snapshots", File: "gate.go",
		Danger: "a workflow or script that runs make preflight-accept, sets UPDATE_PREFLIGHT or writes the allowlist accepts new access on a reviewer's behalf.",
		Fix:    "remove it: a person runs make preflight-accept and commits the diff for review",
		Source: "https://docs.aws.amazon.com/access-analyzer/latest/APIReference/API_CheckNoNewAccess.html"},
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
}

// The IDs of the stacks' rules.
const (
	idPermission = "PS-TPL-002"
	idStateful   = "PS-TPL-004"
	idAllowlist  = "PS-BOOK-002"
	idLogSecrets = "PS-EXP-001"
	idKeySource  = "PS-EXP-003"
	idEvidence   = "PS-EXP-004"
)

// withID gives findings their rule's ID.
func withID(id string, fs []Finding) []Finding {
	for i := range fs {
		fs[i].ID = id
	}
	return fs
}

const ruleSuppression = "suppression"

var (
	legacyWhere = regexp.MustCompile(`^([^:\s]+)(?::(\d+))?\s*(.*)$`)
	scriptLine  = regexp.MustCompile(`\(script line (\d+)\)`)
)

// fromLegacy gives a finding of a Go rule its ID, file and line: Where is
// "<file>:<line> <what>" (a script's own line added to its step's).
func fromLegacy(f Finding) Finding {
	name, rest, _ := strings.Cut(f.Rule, " (")
	if r, ok := goRules[name]; ok {
		f.ID = r.ID
		if _, what, ok := strings.Cut(rest, "): "); ok {
			f.Rule = what
		}
	}
	m := legacyWhere.FindStringSubmatch(f.Where)
	if m == nil || !(strings.Contains(m[1], ".") || m[1] == "Makefile") {
		return f
	}
	f.File, f.Where = m[1], m[3]
	f.Line, _ = strconv.Atoi(m[2])
	// A script's own line: .ci/run's is the file's; a step's is told
	// beside the step's line.
	if s := scriptLine.FindStringSubmatch(f.Where); s != nil && f.File == ".ci/run" && f.Line == 0 {
		f.Line, _ = strconv.Atoi(s[1])
	}
	return f
}
