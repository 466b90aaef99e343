package preflight

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

func packagesOrSkip(t *testing.T) []GoPackage {
	t.Helper()
	for _, tool := range []string{"bash", "make"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the checks gate runs CI's job with %s, which is not on PATH", tool)
			}
			t.Skipf("no %s on PATH: the checks gate runs in make test (CI=true requires it)", tool)
		}
	}
	pkgs, err := ListPackages(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

// The CI job, run on a copy of the repository with every tool a stub, tests
// every package of both modules with no filter, runs every lint step,
// accepts nothing for a reviewer, and fails when any one check fails.
func TestChecksGate(t *testing.T) {
	t.Parallel()
	pkgs := packagesOrSkip(t)
	if len(pkgs) < 20 {
		t.Fatalf("go list found %d packages; want both modules' (over 20)", len(pkgs))
	}
	findings, err := CheckGate(context.Background(), repoRoot, pkgs, !testing.Short())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// gateEdits: edits that would let CI pass without running a check, or
// without failing when one fails, or accept the snapshot for a reviewer.
func gateEdits() []guardEdit {
	return []guardEdit{
		{"GOFLAGS -skip in the checks step", "skip the slow Delve tests in CI; they pass locally anyway",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: 'true'\n          GOFLAGS: -skip=TestDelve\n"), "PS-CI-002", runOnce},
		{"a package dropped from make test's list", "the bench tool's tests take minutes; make bench runs them",
			"Makefile", replaceOnce("./tools/... | grep -vxF", "./tools/... | grep -v /tools/cmd/bench | grep -vxF"), "PS-CI-002", runOnce},
		{"GOFLAGS written to GITHUB_ENV by the pip step", "run the fast half of the tests on pull requests, the rest on main",
			".github/workflows/ci.yml", replaceOnce("        run: python -m pip install -r .github/requirements.txt\n",
				"        run: |\n          python -m pip install -r .github/requirements.txt\n          echo \"GOFLAGS=-run=Test[A-M]\" >> \"$GITHUB_ENV\"\n"), "PS-CI-002", runOnce},
		{"the Windows vet dropped from make lint", "nobody builds for Windows; the vet there only slows lint",
			"Makefile", replaceOnce("\tGOOS=windows GOARCH=amd64 $(GO) vet ./... ./samlocal/... ./tools/...\n", ""), "PS-CI-002", runOnce},
		{"fuzz failures as warnings", "fuzz findings shouldn't block merges; we triage them weekly",
			"Makefile", replaceOnce(`then echo "fuzz failed:$$failed (an input that fails is kept under the package's testdata/fuzz/)"; exit 1; fi`,
				`then echo "::warning::fuzz failed:$$failed"; fi`), "PS-CI-002", failEachCheck},
		{"paths-ignore on pull requests", "docs-only pull requests don't need the full CI",
			".github/workflows/ci.yml", replaceOnce("  pull_request:\n", "  pull_request:\n    paths-ignore: ['docs/**', '**.md']\n"), "PS-CI-002", filesOnly},
		{"the checks' CI variable from a repository variable", "let us turn strict mode off from the settings when moto's site is down",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: ${{ vars.STRICT_CI }}\n"), "PS-CI-002", filesOnly},
		{"make preflight-accept in the deploy's build job", "deploys stall on snapshot diffs; accept them on main automatically",
			".github/workflows/deploy.yml", replaceOnce("      - name: sam build\n", "      - name: accept the reviewed snapshot\n        run: make preflight-accept\n      - name: sam build\n"), "PS-CI-003", filesOnly},
		{"tests shuffled (safe)", "run the tests in random order to shake out order dependence",
			"Makefile", replaceOnce("\t$(TEST_ENV) $(GO) test -race -count=1", "\t$(TEST_ENV) $(GO) test -race -shuffle=on -count=1"), "", runOnce},
	}
}

// Each of gateEdits, made to a copy of the repository, is refused by the
// workflow rules and the checks gate together with one line (or, the safe
// one, passes both). An edit that cannot change what the job runs (a
// trigger, a literal env:, another workflow) is read from the files alone;
// making each check fail in turn costs a run of the job per check, so it
// runs on the repository itself (TestChecksGate) and on the one edit that
// only it can catch.
func TestGateRefusesEditsThatStopTheChecksGating(t *testing.T) {
	t.Parallel()
	skipMutantsInShort(t)
	pkgs := packagesOrSkip(t)
	edits := gateEdits()
	newCopy := func(t *testing.T) string {
		// Not t.TempDir: the job runs here, and make reads a path with
		// the subtest's parentheses as an archive member.
		dir, err := os.MkdirTemp("", "preflight-gate-edit-")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		if err := copyRepository(repoRoot, dir); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	checkGuardEdits(t, edits, newCopy, func(t *testing.T, dir string, tc guardEdit) []Finding {
		findings := checkWorkflowsOf(t, dir, tc)
		if tc.job == filesOnly {
			return findings
		}
		gate, err := checkGate(context.Background(), dir, pkgs, tc.job == failEachCheck, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range gate {
			findings = append(findings, fromLegacy(f))
		}
		return findings
	})
}
