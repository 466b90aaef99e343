# METADATA
# title: Scripts make no AWS credential of their own
# related_resources:
#   - ref: https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html
# custom:
#   id: PS-CRED-003
#   danger: a script (a run step, .ci/run, a Makefile recipe) that sets AWS keys, runs `aws configure`, calls STS for a credential or writes a profile file acts with a credential that is not the environment's OIDC role.
#   fix: take the environment's role with aws-actions/configure-aws-credentials (OIDC) in the dev or prod job; no other credential
package preflight.rules.script_credential

import data.preflight.lib.shell
import data.preflight.rules.aws_credential

# AWS IAM User Guide, "Security best practices in IAM": workloads use
# temporary credentials with IAM roles. A script sets none of the
# variables the SDKs take a credential from (nor writes NAME=... to a file
# such as $GITHUB_ENV), stores none with `aws configure`, mints none with
# STS, and writes no profile file.

# The STS calls that make a credential (AWS STS API reference).
sts_calls := {"assume-role", "assume-role-with-web-identity", "assume-role-with-saml", "get-session-token", "get-federation-token"}

# The settings of `aws configure set` that hold or point to a credential
# (AWS CLI, "Configuration and credential file settings").
configure_keys := {"aws_access_key_id", "aws_secret_access_key", "aws_session_token", "role_arn", "source_profile", "credential_process", "web_identity_token_file", "credential_source"}

finding(sc, s, what) := {"file": sc.file, "line": s.line, "msg": sprintf("%s: %s", [shell.where(sc), what])}

deny contains finding(sc, s, sprintf("the script sets %s: a credential that is not the environment's OIDC role", [a.name])) if {
	some sc in input.scripts
	some s in sc.stmts
	some a in s.assigns
	a.name in aws_credential.credential_env
}

deny contains finding(sc, s, sprintf("the script writes %s=…: a credential that is not the environment's OIDC role", [name])) if {
	some sc in input.scripts
	some s in sc.stmts
	some l in s.literals
	contains(l, "=")
	some name in aws_credential.credential_env
	contains(l, concat("", [name, "="]))
}

deny contains finding(sc, s, sprintf("the script names an AWS profile file (%s): a profile written at run time holds a credential outside the OIDC role", [l])) if {
	some sc in input.scripts
	some s in sc.stmts
	some l in s.literals
	regex.match(`\.aws/(credentials|config)`, l)
}

deny contains finding(sc, s, "`aws configure` stores a credential in a profile file: one that is not the environment's OIDC role") if {
	some sc in input.scripts
	some s in sc.stmts
	a := shell.command(s)
	a[0] == "aws"
	a[1] == "configure"
	configures(a)
}

configures(a) if count(a) == 2

configures(a) if a[2] == "import"

configures(a) if {
	a[2] == "set"
	trim_prefix(a[3], "default.") in configure_keys
}

deny contains finding(sc, s, sprintf("`aws sts %s` makes a credential for a role or user that pipeline/roles.yaml does not give this job", [a[2]])) if {
	some sc in input.scripts
	some s in sc.stmts
	a := shell.command(s)
	a[0] == "aws"
	a[1] == "sts"
	a[2] in sts_calls
}
