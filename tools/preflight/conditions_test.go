package preflight

import (
	"fmt"
	"slices"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// The candidates a caller tries hold a value that only begins like the
// policy's, another account's, and no value at all, whatever the operator.
func TestCandidatesReachBeyondThePolicysValues(t *testing.T) {
	t.Parallel()
	conds := []condition{
		{op: "ArnLike", key: "aws:PrincipalArn", values: []string{"arn:aws:iam::*:role/plant-store-*"}},
		{op: "StringEqualsIfExists", key: "aws:SourceAccount", values: []string{account}},
		{op: "ForAllValues:StringLike", key: "aws:PrincipalOrgPaths", values: []string{"o-a1b2c3d4e5/r-ab12/ou-ab12-11111111/*"}},
	}
	for _, c := range []struct {
		key  string
		want []any
	}{
		{"aws:PrincipalArn", []any{"arn:aws:iam::999999999999:role/plant-store-x-neighbour", nil}},
		{"aws:SourceAccount", []any{account, otherAccount, nil}},
		{"aws:PrincipalOrgPaths", []any{[]any{"o-a1b2c3d4e5/r-ab12/ou-ab12-11111111/x-neighbour"}, nil}},
	} {
		got := candidates(conds, c.key, nil)
		for _, w := range c.want {
			if !slices.ContainsFunc(got, func(v any) bool { return fmt.Sprint(v) == fmt.Sprint(w) }) {
				t.Errorf("candidates of %s are %v: no %v", c.key, got, w)
			}
		}
	}
	// An account's principal may not bring the keys IAM sets from who it is,
	// nor a service's; a service may not bring a principal's organization.
	role, svc := identityOf("arn:aws:iam::999999999999:role/x"), identityOf("s3.amazonaws.com")
	for _, c := range []struct {
		a    actor
		key  string
		want bool
	}{
		{role, "aws:PrincipalArn", false}, {role, "aws:PrincipalOrgID", true}, {role, "aws:SourceArn", false},
		{svc, "aws:SourceArn", true}, {svc, "aws:PrincipalOrgID", false}, {svc, "aws:PrincipalServiceName", false},
		{identityOf(oidcProvider), githubSub, true}, {role, githubSub, false},
	} {
		if got := c.a.free(c.key); got != c.want {
			t.Errorf("%s brings %s itself: %v, want %v", c.a.principal, c.key, got, c.want)
		}
	}
}

// Each edit is one a teammate could write, with its motive: the Principal
// stays narrow, or looks it, and a condition (or a principal named outright)
// admits a neighbour. Each is refused in one line naming the role, who is
// admitted through which key, and the fix; the safe edit is not.
func TestConditionsAdmitOnlyTheIntendedPrincipal(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	const trust = "        Statement:\n"
	statement := func(role, principal, cond string) edit {
		return edit{"pipeline/roles.yaml", "  " + role + ":", trust, trust + "          - Effect: Allow\n            Principal: " + principal +
			"\n            Action: sts:AssumeRole\n" + cond}
	}
	const deployConditions = "              StringEquals:\n                token.actions.githubusercontent.com:aud: sts.amazonaws.com\n"
	cases := []struct {
		name, motive string
		variant      string
		edits        []edit
		where, says  string // "" for a safe edit
	}{
		{"the organization may assume the deploy role", "widen trust to the org so staging's pipeline can assume it", "dev",
			[]edit{statement("DeployRole", "{AWS: '*'}", "            Condition:\n              StringEquals:\n                aws:PrincipalOrgID: o-a1b2c3d4e5\n")},
			"PS-IAM-003 DeployRole", "aws:PrincipalOrgID=o-a1b2c3d4e5"},
		{"any member of any organization", "let our auditors, who always come from an organization, assume the deploy role", "prod",
			[]edit{statement("DeployRole", "{AWS: '*'}", "            Condition:\n              'Null':\n                aws:PrincipalOrgID: 'false'\n")},
			"PS-IAM-003 DeployRole", "aws:PrincipalOrgID=o-neighbour00"},
		{"every role of the account", "let our own admins' roles assume the execution role to unstick a stack", "dev",
			[]edit{statement("CloudFormationExecutionRole", "{AWS: '*'}", "            Condition:\n              StringEquals:\n                aws:PrincipalAccount: !Ref AWS::AccountId\n")},
			"PS-IAM-003 CloudFormationExecutionRole", "arn:aws:iam::123456789012:"},
		{"roles named like ours in any account", "each environment's deployer, in whichever account, may assume it by name", "dev",
			[]edit{statement("DeployRole", "{AWS: '*'}", "            Condition:\n              ArnLike:\n                aws:PrincipalArn: arn:aws:iam::*:role/plant-store-*\n")},
			"PS-IAM-003 DeployRole", "arn:aws:iam::999999999999:role/plant-store-"},
		{"a staging role named outright", "let staging's deployer assume prod's deploy role to promote a release", "prod",
			[]edit{statement("DeployRole", "{AWS: 'arn:aws:iam::111122223333:role/staging-deployer'}", "")},
			"PS-IAM-003 DeployRole", "arn:aws:iam::111122223333:role/staging-deployer"},
		{"tokens without an audience", "configure-aws-credentials v1 sends no aud; accept those tokens too", "dev",
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", deployConditions,
				"              StringEqualsIfExists:\n                token.actions.githubusercontent.com:aud: sts.amazonaws.com\n              StringEquals:\n"}},
			"PS-IAM-003 DeployRole", "no token.actions.githubusercontent.com:aud"},
		{"environments that begin like ours", "dev-eu and dev-us share dev's deploy role", "dev",
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", "              StringEquals:\n", "              StringLike:\n"},
				{"pipeline/roles.yaml", "  DeployRole:", ":environment:${Environment}", ":environment:${Environment}*"}},
			"PS-IAM-003 DeployRole", "repo:plantstore/plant-store:environment:devx-neighbour"},
		{"CloudFormation without a source account", "StackSets assume the execution role without aws:SourceAccount; accept that", "prod",
			[]edit{{"pipeline/roles.yaml", "  CloudFormationExecutionRole:", "              StringEquals:\n                aws:SourceAccount", "              StringEqualsIfExists:\n                aws:SourceAccount"}},
			"PS-IAM-003 CloudFormationExecutionRole", "no aws:SourceAccount"},
		{"safe: StringLike without a wildcard", "copy AWS's GitHub OIDC example, which writes StringLike", "dev",
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", "              StringEquals:\n", "              StringLike:\n"}},
			"", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			// The edits are of the pipeline's roles: the app's roles, which
			// TestTrustAdmitsOnlyTheIntendedPrincipal asks, are left out.
			e := loadMutant(t, mutant(t, c.edits...), c.variant)[0]
			stack := e.app.Stack()
			stack.Params = nil
			var err error
			if e.app, err = samtemplate.Resolve(map[string]any{"Resources": map[string]any{}}, stack); err != nil {
				t.Fatal(err)
			}
			findings := trustFindings(t, []env{e})
			if c.where == "" {
				for _, f := range findings {
					t.Errorf("a safe edit (%s) is refused: %s", c.motive, f)
				}
				return
			}
			wantFinding(t, findings, c.where, c.says)
			if len(findings) != 1 {
				t.Errorf("%d findings, want one line: %v", len(findings), findings)
			}
		})
	}
}
