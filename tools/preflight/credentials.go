package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	"mvdan.cc/sh/v3/syntax"
)

// Identities and credentials (issue 41, class 3): only roles. Neither
// template may create an identity or a key that does not expire, and every
// AWS credential a workflow, .ci/run or a Makefile recipe uses is a role that
// pipeline/roles.yaml defines, taken through GitHub's OIDC token in a job of
// that role's environment. The sources:
//
//   - AWS IAM User Guide, "Security best practices in IAM": "Require workloads
//     to use temporary credentials with IAM roles to access AWS"; and
//     "Programmatic access with AWS security credentials": access keys "that
//     never expire (as you have when you create access keys for an IAM
//     user)", and "Access key IDs beginning with AKIA are long-term access
//     keys";
//   - GitHub's "Secure use reference", "Using OpenID Connect to access cloud
//     resources", and aws-actions/configure-aws-credentials' README, which
//     recommends OIDC over stored keys;
//   - GitHub's "Store information in variables" (precedence: an environment's
//     variable wins over the repository's), which is why the role's ARN is
//     read in a job of its environment.
const (
	ruleLongLivedCredential = "long-lived-credential"
	ruleAWSCredential       = "aws-credential"

	srcIAMBestPractices = `AWS IAM User Guide, "Security best practices in IAM" (workloads use temporary credentials with IAM roles)`
	srcOIDC             = srcSecureUse + `, "Using OpenID Connect to access cloud resources"; aws-actions/configure-aws-credentials README (OIDC)`
	srcVariables        = `GitHub "Store information in variables" (an environment's variable wins)`
)

// longLivedTypes are the CloudFormation types that create an identity other
// than a role, or a key that stays valid until someone deletes it (CloudFormation
// resource reference, AWS::IAM, AWS::EC2::KeyPair, AWS::Transfer::User).
var longLivedTypes = map[string]string{
	"AWS::IAM::User":                      "an IAM user is a long-lived identity: its access keys and password never expire",
	"AWS::IAM::AccessKey":                 "an access key never expires; anyone who reads it signs as its user until it is deleted",
	"AWS::IAM::Group":                     "an IAM group exists only to hold users, which are long-lived identities",
	"AWS::IAM::UserToGroupAddition":       "it puts IAM users, long-lived identities, into a group",
	"AWS::IAM::UserPolicy":                "it grants permissions to an IAM user, a long-lived identity",
	"AWS::IAM::GroupPolicy":               "it grants permissions to the IAM users of a group",
	"AWS::IAM::ServiceSpecificCredential": "a service-specific credential is a password of an IAM user that never expires",
	"AWS::IAM::VirtualMFADevice":          "an MFA device belongs to an IAM user, a long-lived identity",
	"AWS::IAM::ServerCertificate":         "its private key is written into the template, for anyone who reads it",
	"AWS::EC2::KeyPair":                   "an SSH key pair is a key that never expires",
	"AWS::Transfer::User":                 "a Transfer Family user signs in with a static SSH key or password",
}

// credentialEnv are the environment variables from which the AWS SDKs and
// CLI take a credential other than the one configure-aws-credentials sets
// from the role (AWS SDKs and Tools Reference Guide, "Standardized
// credential providers": static keys, shared files and profiles, web
// identity, container credentials).
var credentialEnv = []string{
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
	"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
}

// oidcInputsRefused are configure-aws-credentials' inputs that take the
// credential from somewhere other than the job's OIDC token (its action.yml:
// static keys, another web identity token, the credentials already in the
// job, a chain from them), or hand the role's credentials out as step
// outputs, which job outputs can carry to a job outside the environment.
var oidcInputsRefused = []string{
	"aws-access-key-id", "aws-secret-access-key", "aws-session-token",
	"web-identity-token-file", "role-chaining", "use-existing-credentials", "force-skip-oidc",
	"output-credentials",
}

// accessKeyIDRe is an AWS access key id (IAM User Guide: AKIA long-term,
// ASIA temporary; ABIA and ACCA for STS service bearer tokens and
// context-specific credentials).
// secretKeyAttrRe is a GetAtt of an access key's secret, in any form
// (!GetAtt Key.SecretAccessKey, Fn::GetAtt [Key, SecretAccessKey], or
// ${Key.SecretAccessKey} in a !Sub).
var secretKeyAttrRe = regexp.MustCompile(`(?:^|\.)SecretAccessKey\b`)

var accessKeyIDRe = regexp.MustCompile(`\b(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)

// templates are the two templates of the rule.
var credentialTemplates = []string{"template.yaml", "pipeline/roles.yaml"}

// credentials applies the rule to both templates and to every script and
// step that CI runs.
func (c *wfChecker) credentials() {
	for _, name := range credentialTemplates {
		c.templateCredentials(name)
	}
	role := c.oidcRole()
	for _, w := range c.wfs {
		c.workflowCredentials(w, role)
	}
	for _, s := range c.scripts() {
		c.scriptCredentials(s)
	}
}

// templateCredentials reads one template as YAML (its short-form tags kept
// as node tags) for the resources, the GetAtt of a secret access key, and
// literal access key ids.
func (c *wfChecker) templateCredentials(name string) {
	fix := "use a role: a function's Role, or for CI the environment's deploy role in pipeline/roles.yaml, taken through OIDC"
	raw, err := os.ReadFile(filepath.Join(c.root, name))
	if err != nil {
		c.add(name, ruleLongLivedCredential, srcIAMBestPractices, "cannot read "+name+": "+err.Error(), "restore it")
		return
	}
	if !mayHoldCredential(raw) {
		return
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil || len(doc.Content) == 0 {
		c.add(name, ruleLongLivedCredential, srcIAMBestPractices, name+" does not parse as YAML", "fix its syntax")
		return
	}
	_, resources := yamlEntry(doc.Content[0], "Resources")
	if resources != nil && resources.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(resources.Content); i += 2 {
			id, res := resources.Content[i], resources.Content[i+1]
			_, typ := yamlEntry(res, "Type")
			if typ == nil {
				continue
			}
			where := fmt.Sprintf("%s:%d resource %s (%s)", name, id.Line, id.Value, typ.Value)
			if why, ok := longLivedTypes[typ.Value]; ok {
				c.add(where, ruleLongLivedCredential, srcIAMBestPractices, why, fix)
			}
			_, props := yamlEntry(res, "Properties")
			switch typ.Value {
			case "AWS::IAM::Policy", "AWS::IAM::ManagedPolicy":
				for _, key := range []string{"Users", "Groups"} {
					if k, v := yamlEntry(props, key); v != nil {
						c.add(fmt.Sprintf("%s:%d resource %s (%s) %s", name, k.Line, id.Value, typ.Value, key), ruleLongLivedCredential, srcIAMBestPractices,
							"the policy is attached to IAM "+strings.ToLower(key)+", long-lived identities", "attach it to roles only (Roles:)")
					}
				}
			case "AWS::SecretsManager::Secret":
				if k, v := yamlEntry(props, "SecretString"); v != nil {
					c.add(fmt.Sprintf("%s:%d resource %s SecretString", name, k.Line, id.Value), ruleLongLivedCredential, srcIAMBestPractices,
						"the secret's value is written into the template (or taken from a key it creates): a static credential in git", "let Secrets Manager make it (GenerateSecretString), or put it in with the CLI")
				}
			}
		}
	}
	walkYAML(doc.Content[0], func(n *yaml.Node) {
		if n.Kind != yaml.ScalarNode {
			return
		}
		where := fmt.Sprintf("%s:%d", name, n.Line)
		if secretKeyAttrRe.MatchString(n.Value) {
			c.add(where+" GetAtt SecretAccessKey", ruleLongLivedCredential, srcIAMBestPractices,
				"the template reads an access key's secret, a credential that never expires", fix)
		}
		if m := accessKeyIDRe.FindString(n.Value); m != "" {
			c.add(where, ruleLongLivedCredential, srcIAMBestPractices,
				"an AWS access key id ("+m[:4]+"…) is written into the template", "remove it and deactivate the key; "+fix)
		}
	})
}

// mayHoldCredential says whether a template's text names anything the rule
// refuses: a type of longLivedTypes, a policy's Users or Groups, a secret,
// a key's secret or a key id. Most templates name none, and parsing one is
// most of the rule's cost (it runs for every edit the guards' tests make).
func mayHoldCredential(raw []byte) bool {
	s := string(raw)
	for t := range longLivedTypes {
		if strings.Contains(s, t) {
			return true
		}
	}
	if strings.Contains(s, "AWS::SecretsManager::Secret") || strings.Contains(s, "SecretAccessKey") {
		return true
	}
	for _, p := range []string{"AKIA", "ASIA", "ABIA", "ACCA", "Users", "Groups"} {
		if strings.Contains(s, p) && (len(p) > 4 || accessKeyIDRe.MatchString(s)) {
			if len(p) == 4 {
				return true
			}
			for _, l := range strings.Split(s, "\n") {
				l = strings.Trim(strings.TrimSpace(l), `{,"`)
				if strings.HasPrefix(l, p+":") || strings.HasPrefix(l, p+`":`) {
					return true
				}
			}
		}
	}
	return false
}

func walkYAML(n *yaml.Node, f func(*yaml.Node)) {
	if n == nil {
		return
	}
	f(n)
	for _, c := range n.Content {
		walkYAML(c, f)
	}
}

// oidcRole is what pipeline/roles.yaml says a workflow may assume: the
// GitHub variable that holds the ARN of a role that trusts GitHub's OIDC
// provider (its output's Description names the variable, "the environment's
// GitHub variable NAME"), and the environments (the Environment parameter's
// AllowedValues) whose jobs the role trusts. An empty variable means
// roles.yaml defines no such role, a finding of its own.
type oidcRoleSpec struct {
	variable     string
	environments []string
}

var githubVariableRe = regexp.MustCompile(`GitHub variable ([A-Z][A-Z0-9_]*)`)

func (c *wfChecker) oidcRole() oidcRoleSpec {
	const file = "pipeline/roles.yaml"
	var spec oidcRoleSpec
	raw, err := os.ReadFile(filepath.Join(c.root, file))
	var doc yaml.Node
	if err == nil {
		err = yaml.Unmarshal(raw, &doc)
	}
	if err != nil || len(doc.Content) == 0 {
		return spec // templateCredentials reports it
	}
	root := doc.Content[0]
	_, params := yamlEntry(root, "Parameters")
	_, envParam := yamlEntry(params, "Environment")
	if _, allowed := yamlEntry(envParam, "AllowedValues"); allowed != nil {
		spec.environments = yamlScalars(allowed)
	}
	_, resources := yamlEntry(root, "Resources")
	_, outputs := yamlEntry(root, "Outputs")
	if outputs != nil {
		for i := 0; i+1 < len(outputs.Content); i += 2 {
			out := outputs.Content[i+1]
			_, value := yamlEntry(out, "Value")
			_, desc := yamlEntry(out, "Description")
			if value == nil || desc == nil || value.Tag != "!GetAtt" || !strings.HasSuffix(value.Value, ".Arn") {
				continue
			}
			_, res := yamlEntry(resources, strings.TrimSuffix(value.Value, ".Arn"))
			m := githubVariableRe.FindStringSubmatch(desc.Value)
			if m != nil && trustsGitHubOIDC(res) {
				spec.variable = m[1]
			}
		}
	}
	if spec.variable == "" || len(spec.environments) == 0 {
		c.add(file, ruleAWSCredential, srcOIDC,
			"roles.yaml defines no role that trusts GitHub's OIDC token with an output naming its GitHub variable, or no Environment parameter with AllowedValues",
			"keep DeployRole (sts:AssumeRoleWithWebIdentity from token.actions.githubusercontent.com) and its output DeployRoleArn, described as \"the environment's GitHub variable AWS_DEPLOY_ROLE_ARN\"")
	}
	return spec
}

// trustsGitHubOIDC says whether a resource is a role whose trust policy lets
// GitHub's OIDC tokens assume it, for a sub that names an environment.
func trustsGitHubOIDC(res *yaml.Node) bool {
	_, typ := yamlEntry(res, "Type")
	_, props := yamlEntry(res, "Properties")
	_, trust := yamlEntry(props, "AssumeRolePolicyDocument")
	if typ == nil || typ.Value != "AWS::IAM::Role" || trust == nil {
		return false
	}
	web, sub := false, false
	walkYAML(trust, func(n *yaml.Node) {
		web = web || n.Value == "sts:AssumeRoleWithWebIdentity"
		sub = sub || (strings.Contains(n.Value, ":environment:") && n.Kind == yaml.ScalarNode)
	})
	return web && sub
}

// workflowCredentials: a workflow's AWS credential comes from one step,
// aws-actions/configure-aws-credentials, with role-to-assume the variable
// roles.yaml names and no input that takes a credential from elsewhere, in a
// job of one of the role's environments that asks for the OIDC token
// (id-token: write). No env: of the workflow, a job or a step sets a variable
// the SDKs take a credential from, and no other action is handed an access
// key.
func (c *wfChecker) workflowCredentials(w *workflow, role oidcRoleSpec) {
	want := "${{ vars." + role.variable + " }}"
	checkEnv := func(where string, n *yaml.Node) {
		if n == nil || n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i].Value; slices.Contains(credentialEnv, k) {
				c.add(fmt.Sprintf("%s env %s", where, k), ruleAWSCredential, srcOIDC,
					"the AWS SDKs and CLI take a credential from "+k+", not from the environment's OIDC role", "remove it; take the role with aws-actions/configure-aws-credentials (role-to-assume: "+want+") in a job of its environment")
			}
		}
	}
	_, top := yamlEntry(w.root, "env")
	checkEnv(w.whereTop("env"), top)
	for _, name := range w.order {
		j := w.Jobs[name]
		_, env := yamlEntry(j.node, "env")
		checkEnv(w.where(j), env)
		_, steps := yamlEntry(j.node, "steps")
		for i, s := range j.Steps {
			where := w.whereStep(j, i)
			if steps != nil && i < len(steps.Content) {
				_, env := yamlEntry(steps.Content[i], "env")
				checkEnv(where, env)
			}
			if s.action() != "aws-actions/configure-aws-credentials" {
				for input := range s.With {
					if in := strings.ToLower(input); strings.Contains(in, "access-key") || strings.Contains(in, "secret-key") || strings.Contains(in, "session-token") {
						c.add(where, ruleAWSCredential, srcOIDC, "`"+input+"` hands the action a stored key, a credential that is not the environment's OIDC role", "drop it; take the role with aws-actions/configure-aws-credentials (role-to-assume: "+want+")")
					}
				}
				continue
			}
			var refused []string
			for _, in := range oidcInputsRefused {
				if _, ok := s.With[in]; ok {
					refused = append(refused, in)
				}
			}
			switch got := strings.Join(strings.Fields(s.With["role-to-assume"]), " "); {
			case len(refused) > 0:
				c.add(where, ruleAWSCredential, srcOIDC, "with: `"+strings.Join(refused, "`, `")+"` takes the credential from somewhere other than the job's OIDC token, or hands the role's out", "remove them; the job's OIDC token and role-to-assume: "+want+" are the only source")
				continue
			case role.variable == "":
			case got == "":
				c.add(where, ruleAWSCredential, srcOIDC, "configure-aws-credentials without role-to-assume uses stored keys or the runner's own credentials", "set role-to-assume: "+want)
			case got != want:
				c.add(where, ruleAWSCredential, srcOIDC+"; "+srcVariables,
					"role-to-assume is `"+got+"`, not the role pipeline/roles.yaml defines for the job's environment", "set role-to-assume: "+want+" (roles.yaml's output, set per environment)")
			}
			env := j.environment()
			switch {
			case j.Environment == nil:
				c.add(where, ruleAWSCredential, srcOIDC+"; "+srcVariables,
					"AWS credentials in job "+name+", which names no environment: the role trusts only an environment's jobs, and its ARN is the environment's variable", "move the step into the dev or prod job, or give this job `environment:` with its reviewers")
			case !slices.Contains(role.environments, env):
				c.add(where, ruleAWSCredential, srcOIDC,
					fmt.Sprintf("environment %q is not one whose jobs pipeline/roles.yaml's role trusts (%s)", env, strings.Join(role.environments, ", ")), "run the step in a job of one of those environments")
			case !grantsIDToken(&j.Permissions):
				c.add(where, ruleAWSCredential, srcOIDC, "job "+name+" does not ask for the OIDC token (`id-token: write` in its permissions)", "add `permissions: {contents: read, id-token: write}` to the job")
			}
		}
	}
}

// ciScript is one script that CI runs, parsed: a workflow's run: step,
// .ci/run, or a recipe line of the Makefile with make's simple variables
// expanded.
type ciScript struct {
	where string
	file  *syntax.File
	src   string
}

// scripts are the scripts CI runs, each parsed once (one that does not
// parse is left to the rules that report it).
func (c *wfChecker) scripts() []ciScript {
	if c.parsed != nil {
		return c.parsed
	}
	add := func(where, src string) {
		if f, err := parseShell(src, ""); err == nil {
			c.parsed = append(c.parsed, ciScript{where, f, src})
		}
	}
	for _, w := range c.wfs {
		for _, name := range w.order {
			j := w.Jobs[name]
			for i, s := range j.Steps {
				if s.Run != "" {
					add(w.whereStep(j, i), runScript(s.Run))
				}
			}
		}
	}
	if raw, err := os.ReadFile(filepath.Join(c.root, ".ci", "run")); err == nil {
		add(".ci/run", string(raw))
	}
	if raw, err := os.ReadFile(filepath.Join(c.root, "Makefile")); err == nil {
		m := parseMakefile(string(raw))
		targets := make([]string, 0, len(m.rules))
		for t := range m.rules {
			targets = append(targets, t)
		}
		slices.Sort(targets)
		for _, t := range targets {
			for _, r := range m.rules[t] {
				for _, l := range r.recipe {
					add(fmt.Sprintf("Makefile:%d target %s", l.line, t), expandMake(expandMakeVars(l.text, m.vars)))
				}
			}
		}
	}
	return c.parsed
}

// expandMakeVars replaces $(NAME) by the value of a simple variable, a few
// levels deep; others stay for expandMake.
func expandMakeVars(s string, vars map[string]string) string {
	for range 4 {
		t := makeRefRe.ReplaceAllStringFunc(s, func(ref string) string {
			if v, ok := vars[ref[2:len(ref)-1]]; ok && !strings.Contains(v, "$(shell") {
				return v
			}
			return ref
		})
		if t == s {
			break
		}
		s = t
	}
	return s
}

var makeRefRe = regexp.MustCompile(`\$[({][A-Za-z_][A-Za-z0-9_]*[)}]`)

// stsCredentialCalls are the AWS STS calls that make a credential outside
// the job's OIDC session (AWS STS API reference).
var stsCredentialCalls = []string{"assume-role", "assume-role-with-web-identity", "assume-role-with-saml", "get-session-token", "get-federation-token"}

// configureCredentialKeys are the settings of `aws configure set` that hold
// or point to a credential (AWS CLI, "Configuration and credential file
// settings").
var configureCredentialKeys = []string{"aws_access_key_id", "aws_secret_access_key", "aws_session_token", "role_arn", "source_profile", "credential_process", "web_identity_token_file", "credential_source"}

// scriptCredentials: a script makes no AWS credential of its own. It sets
// none of credentialEnv (an assignment, export, or a NAME=... line written
// to a file such as $GITHUB_ENV), runs no `aws configure` that stores a
// credential, calls no STS operation that mints one, and writes no AWS
// profile file (~/.aws/credentials, ~/.aws/config).
func (c *wfChecker) scriptCredentials(s ciScript) {
	fix := "take the environment's role with aws-actions/configure-aws-credentials (OIDC) in the dev or prod job; no other credential"
	report := func(n syntax.Node, what string) {
		c.add(fmt.Sprintf("%s (script line %d)", s.where, n.Pos().Line()), ruleAWSCredential, srcIAMBestPractices+"; "+srcOIDC, what, fix)
	}
	setsCredential := func(name string) bool { return slices.Contains(credentialEnv, name) }
	syntax.Walk(s.file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil && setsCredential(n.Name.Value) {
				report(n, "the script sets "+n.Name.Value+": a credential that is not the environment's OIDC role")
			}
		case *syntax.Word:
			if lit, _ := shLiteral(n); lit != "" {
				for _, name := range credentialEnv {
					if strings.Contains(lit, name+"=") {
						report(n, "the script writes "+name+"=…: a credential that is not the environment's OIDC role")
						break
					}
				}
				if strings.Contains(lit, ".aws/credentials") || strings.Contains(lit, ".aws/config") {
					report(n, "the script names an AWS profile file ("+squeeze(lit, 40)+"): a profile written at run time holds a credential outside the OIDC role")
				}
			}
		case *syntax.CallExpr:
			a := shWords(n.Args)
			if len(a) < 2 || a[0] != "aws" {
				return true
			}
			switch {
			case a[1] == "configure" && (len(a) == 2 || a[2] == "import" || (a[2] == "set" && len(a) > 3 && slices.Contains(configureCredentialKeys, strings.TrimPrefix(a[3], "default.")))):
				report(n, "`aws configure` stores a credential in a profile file: one that is not the environment's OIDC role")
			case a[1] == "sts" && len(a) > 2 && slices.Contains(stsCredentialCalls, a[2]):
				report(n, "`aws sts "+a[2]+"` makes a credential for a role or user that pipeline/roles.yaml does not give this job")
			}
		}
		return true
	})
}
