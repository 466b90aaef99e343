package preflight

import (
	"slices"
	"testing"
)

// Every role of every variant is assumed by its own principal alone.
func TestTrustAdmitsOnlyTheIntendedPrincipal(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	findings := trustFindings(t, allVariants(t))
	for _, f := range findings {
		t.Error(f)
	}
}

// Each widened trust policy is refused, naming the role and the principal.
func TestTrustRefusesEveryWidening(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	const lambdaTrust = "              Service: lambda.amazonaws.com\n            Action: sts:AssumeRole\n"
	const deployAud = "                token.actions.githubusercontent.com:aud: sts.amazonaws.com\n"
	cases := []struct {
		name, where, says string
		variants          []string
		edits             []edit
	}{
		{"any AWS principal on a function's role", "PS-IAM-003 CreatePlantRole", "999999999999:root", []string{"default"},
			[]edit{{"template.yaml", "  CreatePlantRole:", lambdaTrust, lambdaTrust + "          - Effect: Allow\n            Principal: {AWS: '*'}\n            Action: sts:AssumeRole\n"}}},
		{"Principal * on CodeDeploy's role", "PS-IAM-003 CodeDeployRole", "admits", []string{"dev"},
			[]edit{{"template.yaml", "  CodeDeployRole:", "              Service: codedeploy.amazonaws.com\n            Action: sts:AssumeRole\n",
				"              Service: codedeploy.amazonaws.com\n            Action: sts:AssumeRole\n          - Effect: Allow\n            Principal: '*'\n            Action: sts:AssumeRole\n"}}},
		{"this account's root on the deploy role", "PS-IAM-003 DeployRole", "123456789012:root", []string{"dev"},
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", "        Statement:\n",
				"        Statement:\n          - Effect: Allow\n            Principal: {AWS: !Sub 'arn:${AWS::Partition}:iam::${AWS::AccountId}:root'}\n            Action: sts:AssumeRole\n"}}},
		{"another account's role on the execution role", "PS-IAM-003 CloudFormationExecutionRole", "999999999999:role", []string{"prod"},
			[]edit{{"pipeline/roles.yaml", "  CloudFormationExecutionRole:", "        Statement:\n",
				"        Statement:\n          - Effect: Allow\n            Principal: {AWS: 'arn:aws:iam::999999999999:role/plant-store-dev-Outsider'}\n            Action: sts:AssumeRole\n"}}},
		{"a second service on a function's role", "PS-IAM-003 AuthorizerRole", "ec2.amazonaws.com", []string{"edge"},
			[]edit{{"template.yaml", "  AuthorizerRole:", "              Service: lambda.amazonaws.com\n", "              Service: [lambda.amazonaws.com, ec2.amazonaws.com]\n"}}},
		{"every STS action for the service", "PS-IAM-003 PreTrafficRole", "sts:TagSession", []string{"default"},
			[]edit{{"template.yaml", "  PreTrafficRole:", "            Action: sts:AssumeRole\n", "            Action: 'sts:*'\n"}}},
		{"any branch of the repository", "PS-IAM-003 DeployRole", "ref:refs/heads/main", []string{"dev"},
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", "              StringEquals:\n", "              StringLike:\n"},
				{"pipeline/roles.yaml", "  DeployRole:", ":environment:${Environment}", ":*"}}},
		{"any audience", "PS-IAM-003 DeployRole", "aud https://github.com/plantstore", []string{"prod"},
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", deployAud, ""}}},
		{"pull requests", "PS-IAM-003 DeployRole", "pull_request", []string{"dev"},
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", ":environment:${Environment}", ":pull_request"}}},
		{"the other environment", "PS-IAM-003 DeployRole", "environment:prod", []string{"dev"},
			[]edit{{"pipeline/roles.yaml", "  DeployRole:", "token.actions.githubusercontent.com:sub: !Sub repo:${GitHubOwner}/${GitHubRepo}:environment:${Environment}",
				"token.actions.githubusercontent.com:sub: [!Sub 'repo:${GitHubOwner}/${GitHubRepo}:environment:${Environment}', !Sub 'repo:${GitHubOwner}/${GitHubRepo}:environment:prod']"}}},
		{"CloudFormation on any account's behalf", "PS-IAM-003 CloudFormationExecutionRole", "cloudformation.amazonaws.com", []string{"dev"},
			[]edit{{"pipeline/roles.yaml", "  CloudFormationExecutionRole:", "            Condition:\n              StringEquals:\n                aws:SourceAccount: !Ref AWS::AccountId\n", ""}}},
		{"a role nobody uses", "PS-IAM-003 SpareRole", "no rule says who assumes", []string{"default"},
			[]edit{{"template.yaml", "  CodeDeployRole:\n", "  CodeDeployRole:\n",
				"  SpareRole:\n    Type: AWS::IAM::Role\n    Properties:\n      AssumeRolePolicyDocument:\n        Version: '2012-10-17'\n        Statement:\n          - Effect: Allow\n            Principal:\n              Service: lambda.amazonaws.com\n            Action: sts:AssumeRole\n\n  CodeDeployRole:\n"}}},
		{"the intended service refused", "PS-IAM-003 CreatePlantRole", "does not let lambda.amazonaws.com", []string{"default"},
			[]edit{{"template.yaml", "  CreatePlantRole:", "          - Effect: Allow\n            Principal:\n              Service: lambda", "          - Effect: Deny\n            Principal:\n              Service: lambda"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			findings := trustFindings(t, loadMutant(t, mutant(t, c.edits...), c.variants...))
			wantFinding(t, findings, c.where, c.says)
		})
	}
}

// trustFindings are PS-IAM-003's findings for the variants, on the lines
// of the files they come from.
func trustFindings(t *testing.T, envs []env) []Finding {
	t.Helper()
	roles, err := trustFacts(envs)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(iamBookFindings(t, envs, map[string]any{"access": map[string]any{"roles": roles}}), func(f Finding) bool { return f.ID != "PS-IAM-003" })
}
