package preflight

// The facts of template.yaml and pipeline/roles.yaml as written (before
// the SAM translator): each resource's type and the lines of its
// properties, and the scalars that look like a credential (an access key
// id, a GetAtt of a secret access key), so that a finding names the line a
// person edits.

import (
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

var (
	// secretKeyAttrRe is a GetAtt of an access key's secret, in any form
	// (!GetAtt Key.SecretAccessKey, Fn::GetAtt [Key, SecretAccessKey], or
	// ${Key.SecretAccessKey} in a !Sub).
	secretKeyAttrRe = regexp.MustCompile(`(?:^|\.)SecretAccessKey\b`)
	// accessKeyIDRe is an AWS access key id (IAM User Guide: AKIA
	// long-term, ASIA temporary; ABIA and ACCA for STS bearer tokens and
	// context-specific credentials).
	accessKeyIDRe = regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)
)

// credentialTemplates are the templates as written.
var credentialTemplates = []string{"template.yaml", "pipeline/roles.yaml"}

// templateFacts are the facts of the template file as written, whose top
// node is root (nil for an empty file).
func templateFacts(file string, root *yaml.Node) map[string]any {
	resources := []any{}
	if res := entryNode(root, "Resources"); res != nil && res.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(res.Content); i += 2 {
			id, r := res.Content[i], res.Content[i+1]
			props := map[string]any{}
			if p := entryNode(r, "Properties"); p != nil && p.Kind == yaml.MappingNode {
				for k := 0; k+1 < len(p.Content); k += 2 {
					props[p.Content[k].Value] = p.Content[k].Line
				}
			}
			resources = append(resources, map[string]any{"id": id.Value, "type": entryValue(r, "Type"), "line": id.Line, "properties": props})
		}
	}
	scalars := []any{}
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.ScalarNode {
			value := n.Value
			if strings.HasPrefix(n.Tag, "!") {
				value = n.Tag + " " + value
			}
			if secretKeyAttrRe.MatchString(n.Value) {
				scalars = append(scalars, map[string]any{"line": n.Line, "kind": "secret-access-key", "value": value})
			}
			if m := accessKeyIDRe.FindString(n.Value); m != "" {
				scalars = append(scalars, map[string]any{"line": n.Line, "kind": "access-key-id", "value": m[:4] + "…"})
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	if root != nil {
		walk(root)
	}
	return map[string]any{"file": file, "resources": resources, "scalars": scalars}
}

var githubVariableRe = regexp.MustCompile(`GitHub variable ([A-Z][A-Z0-9_]*)`)

// oidcRoleFacts is what pipeline/roles.yaml says a workflow may assume: the
// GitHub variable that holds the ARN of a role that trusts GitHub's OIDC
// provider (its output's Description names the variable, "the
// environment's GitHub variable NAME"), and the environments (the
// Environment parameter's AllowedValues) whose jobs the role trusts.
func oidcRoleFacts(r *yaml.Node) map[string]any {
	out := map[string]any{"file": "pipeline/roles.yaml", "variable": "", "environments": []string{}}
	if r == nil {
		return out
	}
	if allowed := entryNode(entryNode(entryNode(r, "Parameters"), "Environment"), "AllowedValues"); allowed != nil {
		out["environments"] = yamlScalars(allowed)
	}
	resources, outputs := entryNode(r, "Resources"), entryNode(r, "Outputs")
	if outputs == nil {
		return out
	}
	for i := 0; i+1 < len(outputs.Content); i += 2 {
		value, desc := entryNode(outputs.Content[i+1], "Value"), entryNode(outputs.Content[i+1], "Description")
		if value == nil || desc == nil || value.Tag != "!GetAtt" || !strings.HasSuffix(value.Value, ".Arn") {
			continue
		}
		if m := githubVariableRe.FindStringSubmatch(desc.Value); m != nil && trustsGitHubOIDC(entryNode(resources, strings.TrimSuffix(value.Value, ".Arn"))) {
			out["variable"] = m[1]
		}
	}
	return out
}

// trustsGitHubOIDC says whether a resource is a role whose trust policy lets
// GitHub's OIDC tokens assume it, for a sub that names an environment.
func trustsGitHubOIDC(res *yaml.Node) bool {
	trust := entryNode(entryNode(res, "Properties"), "AssumeRolePolicyDocument")
	if entryValue(res, "Type") != "AWS::IAM::Role" || trust == nil {
		return false
	}
	web, sub := false, false
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		web = web || n.Value == "sts:AssumeRoleWithWebIdentity"
		sub = sub || (strings.Contains(n.Value, ":environment:") && n.Kind == yaml.ScalarNode)
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(trust)
	return web && sub
}
