package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

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
