package preflight

import "testing"

// runnerEdits: edits that would run CI's code on a machine GitHub does not
// reset, run code fetched unpinned, or let event data steer later steps.
func runnerEdits() []guardEdit {
	const samBuild = "      - name: sam build\n"
	return []guardEdit{
		{"CI on a self-hosted runner", "run the tests on our own beefy box; hosted runners are slow",
			".github/workflows/ci.yml", replaceOnce("    runs-on: ubuntu-24.04\n", "    runs-on: [self-hosted, linux, x64]\n"), "PS-WF-012"},
		{"the build's runner from a variable", "let ops move the build to the big runner without a pull request",
			".github/workflows/deploy.yml", replaceOnce("    needs: ci\n    runs-on: ubuntu-24.04\n", "    needs: ci\n    runs-on: ${{ vars.BUILD_RUNNER || 'ubuntu-24.04' }}\n"), "PS-WF-012"},
		{"staticcheck at latest", "always lint with the newest staticcheck checks",
			"Makefile", replaceOnce("STATICCHECK_VERSION ?= v0.8.2", "STATICCHECK_VERSION ?= latest"), "PS-SUP-002"},
		{"curl | sh in a CI step", "install uv to run zizmor in CI",
			".github/workflows/ci.yml", replaceOnce("      - name: .ci/run", "      - name: uv\n        run: curl -LsSf https://astral.sh/uv/install.sh | sh\n      - name: .ci/run"), "PS-SUP-001"},
		{"cfn-lint as a range", "take cfn-lint's new rules as they ship",
			".github/requirements.txt", replaceOnce("cfn-lint==1.51.0", "cfn-lint>=1.51.0"), "PS-SUP-002"},
		{"npm install in place of npm ci", "npm ci fails whenever the lockfile drifts; install fixes it up",
			"Makefile", replaceOnce("@npm ci --no-audit", "@npm install --no-audit"), "PS-SUP-002"},
		{"sam build in SAM's build container", "build in the Lambda image for parity with production",
			".github/workflows/deploy.yml", replaceOnce("        run: sam build --config-env dev\n", "        run: sam build --use-container --config-env dev\n"), "PS-SUP-003"},
		{"the build job in a container by tag", "build in the same image as sam build --use-container",
			".github/workflows/deploy.yml", replaceOnce("    needs: ci\n    runs-on: ubuntu-24.04\n", "    needs: ci\n    runs-on: ubuntu-24.04\n    container: public.ecr.aws/sam/build-provided.al2023:latest\n"), "PS-WF-013"},
		{"the head commit's message into GITHUB_ENV", "keep the commit message as a release note for later steps",
			".github/workflows/deploy.yml", replaceOnce(samBuild, "      - name: release note\n        env:\n          HEAD_MESSAGE: ${{ github.event.head_commit.message }}\n        run: echo \"RELEASE_NOTE=$HEAD_MESSAGE\" >> \"$GITHUB_ENV\"\n"+samBuild), "PS-WF-014"},
		{"the branch name through tee into GITHUB_OUTPUT", "tag the artifact with the branch it was built from",
			".github/workflows/deploy.yml", replaceOnce(samBuild, "      - name: branch\n        run: echo \"branch=$GITHUB_HEAD_REF\" | tee -a \"$GITHUB_OUTPUT\"\n"+samBuild), "PS-WF-014"},
		{"event data through a variable and a heredoc", "a short release note, cut to 72 characters",
			".github/workflows/deploy.yml", replaceOnce(samBuild, "      - name: note\n        env:\n          TITLE: ${{ github.event.head_commit.message }}\n        run: |\n          note=$(printf '%s' \"$TITLE\" | head -c 72)\n          cat >> \"$GITHUB_ENV\" <<EOF\n          NOTE=$note\n          EOF\n"+samBuild), "PS-WF-014"},
		{"an arm runner, a pinned tool and a literal env line (safe)", "build on arm like the functions, with govulncheck and a local toolchain",
			".github/workflows/deploy.yml", allEdits(
				replaceOnce("    needs: ci\n    runs-on: ubuntu-24.04\n", "    needs: ci\n    runs-on: ubuntu-24.04-arm\n"),
				replaceOnce(samBuild, "      - name: tools\n        run: |\n          echo \"GOTOOLCHAIN=local\" >> \"$GITHUB_ENV\"\n          go install golang.org/x/vuln/cmd/govulncheck@v1.1.4\n"+samBuild)), ""},
	}
}

// Each of runnerEdits, made to a copy of the files the workflow rules read,
// is refused with one line (or, the safe one, passes).
func TestCodeRunsOnHostedRunnersFromPinnedSources(t *testing.T) {
	t.Parallel()
	checkGuardEdits(t, runnerEdits(), copyCheckedFiles, checkWorkflowsOf)
}
