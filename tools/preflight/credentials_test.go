package preflight

import "testing"

// credentialEdits: edits that would give CI, or either stack, an AWS
// credential other than the environment's role taken through OIDC.
func credentialEdits() []guardEdit {
	const (
		devRole = "          role-to-assume: ${{ vars.AWS_DEPLOY_ROLE_ARN }}\n          aws-region: ${{ vars.AWS_REGION }}\n          role-session-name: plant-store-dev-"
		devSess = "          role-session-name: plant-store-dev-${{ github.run_id }}\n"
		smoke   = "          out() { aws cloudformation describe-stacks"
		oidc    = "      - uses: aws-actions/configure-aws-credentials@7474bc4690e29a8392af63c5b98e7449536d5c3a # v4.3.1\n        with:\n          role-to-assume: ${{ vars.AWS_DEPLOY_ROLE_ARN }}\n          aws-region: ${{ vars.AWS_REGION }}\n"
	)
	return []guardEdit{
		{"stored keys in the dev job", "use the CI user's keys while the OIDC provider is broken",
			".github/workflows/deploy.yml", replaceOnce(devRole, "          aws-access-key-id: ${{ secrets.CI_AWS_ACCESS_KEY_ID }}\n          aws-secret-access-key: ${{ secrets.CI_AWS_SECRET_ACCESS_KEY }}\n          aws-region: ${{ vars.AWS_REGION }}\n          role-session-name: plant-store-dev-"),
			"PS-CRED-002"},
		{"a role ARN written into the dev job", "hotfix: deploy dev with the admin role until the deploy role's policy is fixed",
			".github/workflows/deploy.yml", replaceOnce(devRole, "          role-to-assume: arn:aws:iam::123456789012:role/plant-store-admin\n          aws-region: ${{ vars.AWS_REGION }}\n          role-session-name: plant-store-dev-"),
			"PS-CRED-002"},
		{"credentials in the build job, which has no environment", "stamp the build with the stack's current version, read from CloudFormation",
			".github/workflows/deploy.yml", replaceOnce("      - name: sam build\n", oidc+"      - name: sam build\n"), "PS-CRED-002"},
		{"the role's credentials as step outputs", "hand dev's session to a later job that checks the alarms",
			".github/workflows/deploy.yml", replaceOnce(devSess, devSess+"          output-credentials: true\n"), "PS-CRED-002"},
		{"aws configure in the smoke step", "the smoke step's CLI calls want a profile of their own",
			".github/workflows/deploy.yml", replaceOnce(smoke, "          aws configure set aws_access_key_id \"$SMOKE_KEY_ID\"\n"+smoke), "PS-CRED-003"},
		{"aws sts assume-role in the smoke step", "the smoke check should run as the release role, like production traffic",
			".github/workflows/deploy.yml", replaceOnce(smoke, "          aws sts assume-role --role-arn \"$RELEASE_ROLE_ARN\" --role-session-name smoke > /dev/null\n"+smoke), "PS-CRED-003"},
		{"a profile file written by .ci/run", "give sam a named profile for the local smoke run",
			".ci/run", replaceOnce("set -euo pipefail\n", "set -euo pipefail\nmkdir -p ~/.aws\nprintf '[ci]\\nrole_arn = %s\\n' \"$CI_ROLE\" > ~/.aws/config\n"), "PS-CRED-003"},
		{"an IAM user in the pipeline stack", "a user for the nightly smoke check that runs outside GitHub",
			"pipeline/roles.yaml", replaceOnce("Resources:\n", "Resources:\n  NightlySmokeUser:\n    Type: AWS::IAM::User\n    Properties:\n      UserName: plant-store-nightly-smoke\n\n"), "PS-CRED-001"},
		{"an access key in the app stack", "the partner's uploader needs a key for its existing IAM user",
			"template.yaml", replaceOnce("Resources:\n", "Resources:\n  PartnerUploaderKey:\n    Type: AWS::IAM::AccessKey\n    Properties:\n      UserName: partner-uploader\n\n"), "PS-CRED-001"},
		{"a shorter session (safe)", "the deploy takes minutes; its session need not last an hour",
			".github/workflows/deploy.yml", replaceOnce(devSess, devSess+"          role-duration-seconds: 1800\n"), ""},
	}
}

// Each of credentialEdits, made to a copy of the files the workflow rules
// read, is refused with one line (or, the safe one, passes).
func TestCredentialsAreTheEnvironmentsRoleOnly(t *testing.T) {
	t.Parallel()
	checkGuardEdits(t, credentialEdits(), copyCheckedFiles, checkWorkflowsOf)
}
