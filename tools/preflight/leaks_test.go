package preflight

import "testing"

// leakEdits: edits that print or upload a run's credentials, or let anyone
// on GitHub start a workflow, or deploy two runs at once.
func leakEdits() []guardEdit {
	const (
		smoke     = "      - name: smoke check with a real token\n        run: |\n"
		samBuild  = "      - name: sam build\n        run: sam build --config-env dev\n"
		prodSteps = "          role-session-name: plant-store-prod-${{ github.run_id }}\n"
		upload    = "      - uses: actions/upload-artifact@ea165f8d65b6e75b540449e92b4886f43607fa02 # v4.6.2\n"
	)
	return []guardEdit{
		{"set -x in the dev smoke check", "the smoke check fails now and then; trace it to see which call",
			".github/workflows/deploy.yml", replaceOnce(smoke, smoke+"          set -x\n"), "PS-WF-020"},
		{"curl -v for the token request", "see why Cognito answers 400 to the token request",
			".github/workflows/deploy.yml", replaceOnce("token=$(curl -sf -u", "token=$(curl -svf -u"), "PS-WF-021"},
		{"aws --debug on the secret's lookup, on its continued line", "see why describe-user-pool-client fails in dev",
			".github/workflows/deploy.yml", replaceOnce("--query UserPoolClient.ClientSecret --output text)", "--query UserPoolClient.ClientSecret --output text --debug)"), "PS-WF-021"},
		{"printenv after the prod credentials", "check which region and role the prod deploy got",
			".github/workflows/deploy.yml", replaceOnce(prodSteps, prodSteps+"      - name: show the AWS environment\n        run: printenv | grep AWS_\n"), "PS-WF-022"},
		{"sam build's log as an artifact", "keep the build's log for when a bootstrap is missing",
			".github/workflows/deploy.yml", replaceOnce(upload+"        with:\n          name: sam-build\n",
				"      - name: keep the log\n        run: sam build --debug --config-env dev 2> sam-build.log\n"+upload+"        with:\n          name: sam-build-log\n          path: sam-build.log\n          retention-days: 7\n"+upload+"        with:\n          name: sam-build\n"), "PS-WF-023"},
		{"the checks rerun on a /retest comment", "rerun a flaky check from the pull request's conversation",
			".github/workflows/ci.yml", replaceOnce("  pull_request:\n", "  pull_request:\n  issue_comment:\n    types: [created]\n"), "PS-WF-024"},
		{"secrets: inherit for the checks", "the checks will need a Sonar token soon; pass them all once",
			".github/workflows/deploy.yml", replaceOnce("    uses: ./.github/workflows/ci.yml\n", "    uses: ./.github/workflows/ci.yml\n    secrets: inherit\n"), "PS-WF-025"},
		{"superseded deploys cancelled", "a newer push makes the running deploy pointless; cancel it",
			".github/workflows/deploy.yml", replaceOnce("  cancel-in-progress: false\n", "  cancel-in-progress: true\n"), "PS-WF-026"},
		{"the deploys' concurrency per commit", "runs queue behind each other; let each commit deploy at once",
			".github/workflows/deploy.yml", replaceOnce("  group: deploy\n", "  group: deploy-${{ github.sha }}\n"), "PS-WF-026"},
		{"set -x in the build job, which holds no credential (safe)", "trace sam build when a bootstrap goes missing",
			".github/workflows/deploy.yml", replaceOnce(samBuild, "      - name: sam build\n        run: |\n          set -x\n          env | sort\n          sam build --config-env dev\n"), ""},
	}
}

// Each of leakEdits, made to a copy of the files the workflow rules read,
// is refused with one finding of its rule (or, the safe one, passes).
func TestWorkflowsLeakNothingAndRunForNoStranger(t *testing.T) {
	t.Parallel()
	checkGuardEdits(t, leakEdits(), copyCheckedFiles, checkWorkflowsOf)
}
