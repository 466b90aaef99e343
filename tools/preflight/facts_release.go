package preflight

// The facts the rules of release safety, lifetimes and secrets read that
// the stacks' resources do not carry: the Parameters and Outputs of
// template.yaml and pipeline/roles.yaml as written (input.declared), and
// the lifetimes docs/deploy.md states (input.evidence_floor).

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// The lifetimes of credentials and evidence, as docs/deploy.md's table
// "Lifetimes" states them (TestDeployDocStatesTheLifetimes holds the two
// equal).
const (
	// deploySession* bound a deploy job's AWS session: long enough for
	// sam deploy to watch a canary release to its end (its 5 minutes, the
	// hook and CloudFormation's own steps), no longer than IAM's default
	// hour that a stolen session stays usable.
	deploySessionMinSeconds = 1800
	deploySessionMaxSeconds = 3600
	// token* bound the Cognito app client's access and ID tokens, which
	// the authorizer cannot revoke (it checks signature and expiry).
	tokenMinMinutes = 15
	tokenMaxMinutes = 60
	// refreshTokenMaxDays is Cognito's default refresh token lifetime.
	refreshTokenMaxDays = 30
	// artifact* bound the build that prod deploys after its reviewer
	// approves (GitHub lets a job wait for approval up to 30 days).
	artifactMinDays = 7
	artifactMaxDays = 30
	// retentionCeilingDays is the most days a log group keeps request
	// data (client addresses, principals) before it is deleted.
	retentionCeilingDays = 365
)

// lifetimes are docs/deploy.md's floors and ceilings of lifetimes, added
// to input.evidence_floor (evidenceFloor).
func lifetimes() map[string]any {
	return map[string]any{
		"retention_max_days":     retentionCeilingDays,
		"session_min_seconds":    deploySessionMinSeconds,
		"session_max_seconds":    deploySessionMaxSeconds,
		"token_min_minutes":      tokenMinMinutes,
		"token_max_minutes":      tokenMaxMinutes,
		"refresh_token_max_days": refreshTokenMaxDays,
		"artifact_min_days":      artifactMinDays,
		"artifact_max_days":      artifactMaxDays,
	}
}

// declaredFacts are input.declared: for each template as written, its
// Parameters, Outputs and Resources by name, each {"line": n, "value": v},
// and its Globals, the values with CloudFormation's short tags in their
// long form (!Ref x is {"Ref": "x"}, !GetAtt a.b is
// {"Fn::GetAtt": ["a", "b"]}), as the translated stacks write them. SAM's
// own properties are here as the deployed transform reads them: the
// stacks' translation is shared by every variant, made with the
// parameters' defaults (a DeploymentPreference Type of !Ref is the
// default's there).
func declaredFacts(docs map[string]*yaml.Node) map[string]any {
	out := map[string]any{}
	for _, name := range credentialTemplates {
		parts := map[string]any{"parameters": map[string]any{}, "outputs": map[string]any{}, "resources": map[string]any{}, "globals": map[string]any{}}
		out[name] = parts
		top := docs[name]
		if top == nil {
			continue
		}
		if g := entryNode(top, "Globals"); g != nil {
			parts["globals"] = cfnValue(g)
		}
		for key, section := range map[string]string{"parameters": "Parameters", "outputs": "Outputs", "resources": "Resources"} {
			parts[key] = entryFacts(entryNode(top, section), cfnValue)
		}
	}
	return out
}

// cfnValue is a node as plain data, as yamlValue makes it, with each short
// intrinsic tag in its long form.
func cfnValue(n *yaml.Node) any {
	var v any
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = cfnValue(n.Content[i+1])
		}
		v = m
	case yaml.SequenceNode:
		l := []any{}
		for _, c := range n.Content {
			l = append(l, cfnValue(c))
		}
		v = l
	default:
		v = yamlValue(n)
	}
	fn, ok := strings.CutPrefix(n.Tag, "!")
	if !ok || strings.HasPrefix(fn, "!") {
		return v
	}
	if s, isStr := v.(string); fn == "GetAtt" && isStr {
		attr, rest, _ := strings.Cut(s, ".")
		v = []any{attr, rest}
	}
	if fn != "Ref" && fn != "Condition" {
		fn = "Fn::" + fn
	}
	return map[string]any{fn: v}
}
