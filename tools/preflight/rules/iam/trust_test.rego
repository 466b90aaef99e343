package preflight.rules.trust_test

import data.preflight.rules.trust

deploy_sub := "repo:plantstore/plant-store:environment:dev"

deploy(admitted) := {
	"variant": "dev", "id": "DeployRole", "file": "pipeline/roles.yaml", "account": "123456789012",
	"users": ["arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com"],
	"assumer": {
		"principal": "arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com", "action": "sts:AssumeRoleWithWebIdentity",
		"context": {"token.actions.githubusercontent.com:sub": deploy_sub, "token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
	},
	"intended": {"result": "Allowed", "error": ""}, "admitted": admitted,
}

oidc(n, sub) := {
	"n": n, "principal": "arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com", "action": "sts:AssumeRoleWithWebIdentity",
	"context": {"token.actions.githubusercontent.com:sub": sub, "token.actions.githubusercontent.com:aud": "sts.amazonaws.com"},
	"result": "Allowed", "error": "", "actor": "", "brought": "",
}

facts(roles) := {"access": {"roles": roles}, "stacks": [{"variant": "dev", "probe": false, "file": "pipeline/roles.yaml", "resources": {"DeployRole": {"line": 168}}}]}

test_passes_the_intended_workflow_alone if {
	count(trust.deny) == 0 with input as facts([deploy([oidc(3, deploy_sub)])])
}

test_refuses_another_environment if {
	some f in trust.deny with input as facts([deploy([oidc(3, deploy_sub), oidc(4, "repo:plantstore/plant-store:environment:prod")])])
	f.line == 168
	f.msg == "DeployRole (dev): its trust policy admits arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com (sub repo:plantstore/plant-store:environment:prod, aud sts.amazonaws.com) (sts:AssumeRoleWithWebIdentity); only arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com may assume it, with sts:AssumeRoleWithWebIdentity"
}

test_refuses_an_organization_by_its_condition if {
	org := {
		"n": 9, "principal": "arn:aws:iam::999999999999:root", "action": "sts:AssumeRole", "context": {"aws:PrincipalOrgID": "o-a1b2c3d4e5"},
		"result": "Allowed", "error": "", "actor": "arn:aws:iam::999999999999:root", "brought": "aws:PrincipalOrgID=o-a1b2c3d4e5",
	}
	some f in trust.deny with input as facts([deploy([org])])
	contains(f.msg, "admits arn:aws:iam::999999999999:root (aws:PrincipalOrgID=o-a1b2c3d4e5) (sts:AssumeRole)")
	startswith(f.fix, "make the Condition pin the one intended principal")
}

test_refuses_a_role_nobody_uses if {
	some f in trust.deny with input as facts([{"variant": "dev", "id": "DeployRole", "file": "pipeline/roles.yaml", "users": []}])
	f.msg == "DeployRole (dev): no rule says who assumes this role"
}

test_refuses_an_intended_principal_refused if {
	r := object.union(deploy([]), {"intended": {"result": "ExplicitlyDenied", "error": ""}})
	some f in trust.deny with input as facts([r])
	contains(f.msg, "its trust policy does not let arn:aws:iam::123456789012:oidc-provider/token.actions.githubusercontent.com call sts:AssumeRoleWithWebIdentity")
}
