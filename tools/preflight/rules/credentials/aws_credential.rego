# METADATA
# title: CI's only AWS credential is the environment's role, through OIDC
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/security/secure-use#using-openid-connect-to-access-cloud-resources
# custom:
#   id: PS-CRED-002
#   danger: a workflow that takes an AWS credential other than the role pipeline/roles.yaml defines for the job's environment (stored keys, another role, a profile, the role handed out as outputs) deploys without the environment's reviewers and branch policy.
#   fix: take the environment's role with aws-actions/configure-aws-credentials (role-to-assume the variable roles.yaml names) in the dev or prod job, with `id-token write`; no other credential
package preflight.rules.aws_credential

import data.preflight.lib.github

# The variables from which the AWS SDKs and CLI take a credential (AWS SDKs
# and Tools Reference Guide, "Standardized credential providers").
credential_env := {
	"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
	"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE",
	"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN",
	"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
	"AWS_CONTAINER_AUTHORIZATION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE",
}

# configure-aws-credentials' inputs that take the credential from elsewhere
# than the job's OIDC token, or hand the role's out as step outputs.
refused_inputs := {
	"aws-access-key-id", "aws-secret-access-key", "aws-session-token",
	"web-identity-token-file", "role-chaining", "use-existing-credentials", "force-skip-oidc",
	"output-credentials",
}

role := input.oidc_role

want := sprintf("${{ vars.%s }}", [role.variable])

deny contains {"file": role.file, "line": 1, "msg": "roles.yaml defines no role that trusts GitHub's OIDC token with an output naming its GitHub variable, or no Environment parameter with AllowedValues"} if {
	role.variable == ""
}

deny contains {"file": role.file, "line": 1, "msg": "roles.yaml defines no role that trusts GitHub's OIDC token with an output naming its GitHub variable, or no Environment parameter with AllowedValues"} if {
	count(role.environments) == 0
}

envs contains [w, w.top.env, "the workflow"] if {
	some w in input.workflows
	w.top.env
}

envs contains [w, j.keys.env, sprintf("job %s", [j.name])] if {
	some w in input.workflows
	some j in w.jobs
	j.keys.env
}

envs contains [w, s.keys.env, github.step_where(j, s)] if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.keys.env
}

deny contains {"file": w.file, "line": e.line, "msg": sprintf("%s sets %s: the AWS SDKs and CLI take a credential from it, not from the environment's OIDC role", [label, k])} if {
	some [w, e, label] in envs
	some k, _ in e.value
	k in credential_env
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: `%s` hands the action a stored key", [github.step_where(j, s), k])} if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.action != "aws-actions/configure-aws-credentials"
	some k, _ in s.with
	regex.match(`(?i)access-key|secret-key|session-token`, k)
}

configure_steps contains [w, j, s] if {
	some w in input.workflows
	some j in w.jobs
	some s in j.steps
	s.action == "aws-actions/configure-aws-credentials"
}

refused(s) := {k | some k, _ in s.with; k in refused_inputs}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: with `%s` takes the credential from somewhere other than the job's OIDC token, or hands the role's out", [github.step_where(j, s), concat("`, `", sort(refused(s)))])} if {
	some [w, j, s] in configure_steps
	count(refused(s)) > 0
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: role-to-assume is `%s`, not the role pipeline/roles.yaml defines for the job's environment (%s)", [github.step_where(j, s), got, want])} if {
	some [w, j, s] in configure_steps
	count(refused(s)) == 0
	role.variable != ""
	got := concat(" ", split(trim_space(object.get(s.with, "role-to-assume", "")), " "))
	got != want
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: AWS credentials in job %s, which names no environment", [github.step_where(j, s), j.name])} if {
	some [w, j, s] in configure_steps
	count(refused(s)) == 0
	not j.has_environment
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: environment %q is not one whose jobs pipeline/roles.yaml's role trusts (%s)", [github.step_where(j, s), j.environment, concat(", ", role.environments)])} if {
	some [w, j, s] in configure_steps
	count(refused(s)) == 0
	j.has_environment
	not j.environment in role.environments
}

deny contains {"file": w.file, "line": s.line, "msg": sprintf("%s: job %s does not ask for the OIDC token (`id-token: write` in its permissions)", [github.step_where(j, s), j.name])} if {
	some [w, j, s] in configure_steps
	count(refused(s)) == 0
	j.has_environment
	j.environment in role.environments
	not github.grants_id_token(github.permissions(j))
}
