package preflight

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// copyWithSources copies what Check reads, with the reviewed proof, and
// links the Go sources and go.mod files that go list's packages are read
// from: a copy of each of the repository's hundreds of Go files for each
// of the tables' edits was a quarter of this package's test time (creating
// files), and an edit replaces the file it changes (textEdit.apply), so a
// link never writes through to the repository.
func copyWithSources(t *testing.T) string {
	t.Helper()
	dir := copyCheckedFiles(t)
	copyFile(t, filepath.Join(repoRoot, proofFile), filepath.Join(dir, proofFile), 0o644)
	err := filepath.WalkDir(repoRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, p)
		name := d.Name()
		if d.IsDir() {
			if rel != "." && (name == "testdata" || name == "node_modules" || name == "bin" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") || name == "go.mod" {
			linkFile(t, p, filepath.Join(dir, rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// linkFile links dst to src, or copies src where a link cannot be made
// (another file system).
func linkFile(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) != nil {
		copyFile(t, src, dst, 0o644)
	}
}

// gateEdits: edits that would let CI pass without running a check, or
// without failing when one fails, or accept the snapshot for a reviewer.
func gateEdits() []guardEdit {
	return []guardEdit{
		{"GOFLAGS -skip in the checks step", "skip the slow Delve tests in CI; they pass locally anyway",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: 'true'\n          GOFLAGS: -skip=TestDelve\n"), "PS-CI-002"},
		{"a package dropped from make test's list", "the bench tool's tests take minutes; make bench runs them",
			"Makefile", replaceOnce("./tools/... | grep -vxF", "./tools/... | grep -v /tools/cmd/bench | grep -vxF"), "PS-CI-002"},
		{"GOFLAGS written to GITHUB_ENV by the pip step", "run the fast half of the tests on pull requests, the rest on main",
			".github/workflows/ci.yml", replaceOnce("        run: python -m pip install -r .github/requirements.txt\n",
				"        run: |\n          python -m pip install -r .github/requirements.txt\n          echo \"GOFLAGS=-run=Test[A-M]\" >> \"$GITHUB_ENV\"\n"), "PS-CI-005"},
		{"the Windows vet dropped from make lint", "nobody builds for Windows; the vet there only slows lint",
			"Makefile", replaceOnce("\tGOOS=windows GOARCH=amd64 $(GO) vet ./... ./samlocal/... ./tools/...\n", ""), "PS-CI-022"},
		{"fuzz failures as warnings", "fuzz findings shouldn't block merges; we triage them weekly",
			"Makefile", replaceOnce(`then echo "fuzz failed:$$failed (an input that fails is kept under the package's testdata/fuzz/)"; exit 1; fi`,
				`then echo "::warning::fuzz failed:$$failed"; fi`), "PS-CI-006"},
		{"paths-ignore on pull requests", "docs-only pull requests don't need the full CI",
			".github/workflows/ci.yml", replaceOnce("  pull_request:\n", "  pull_request:\n    paths-ignore: ['docs/**', '**.md']\n"), "PS-CI-004"},
		{"the checks' CI variable from a repository variable", "let us turn strict mode off from the settings when moto's site is down",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: ${{ vars.STRICT_CI }}\n"), "PS-CI-005"},
		{"make preflight-accept in the deploy's build job", "deploys stall on snapshot diffs; accept them on main automatically",
			".github/workflows/deploy.yml", replaceOnce("      - name: sam build\n", "      - name: accept the reviewed snapshot\n        run: make preflight-accept\n      - name: sam build\n"), "PS-CI-003"},
		{"the snapshot accepted before make test", "make test fails after every template change until someone runs preflight-accept",
			"Makefile", replaceOnce("test: node_modules moto", "test: preflight-accept node_modules moto"), "PS-CI-003"},
		{"a make wrapper first on PATH", "time each make target in CI: .ci/bin/make wraps the real one",
			".ci/run", replaceOnce("\nmake lint\n", "\nexport PATH=\"$PWD/.ci/bin:$PATH\"\nmake lint\n"), "PS-CI-007"},
		{"BASH_ENV for the checks", "share the retry helpers with every step and recipe: bash sources them",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: 'true'\n          BASH_ENV: .ci/helpers.sh\n"), "PS-CI-007"},
		{"an alias for make in .ci/run", "print how long each make takes without editing every line",
			".ci/run", replaceOnce("\nmake lint\n", "\nshopt -s expand_aliases\nalias make='time make'\nmake lint\n"), "PS-CI-007"},
		{"the repository's go wrapper on the recipes' PATH", "scripts/go sets GOFLAGS for everyone, so nobody forgets them",
			"Makefile", replaceOnce("test: node_modules moto", "export PATH := $(CURDIR)/scripts:$(PATH)\ntest: node_modules moto"), "PS-CI-007"},
		{"go-installed tools on PATH (safe)", "find the tools go install puts in ~/go/bin",
			".ci/run", replaceOnce("\nmake lint\n", "\nexport PATH=\"$HOME/go/bin:$PATH\"\nmake lint\n"), ""},
		{"tests shuffled (safe)", "run the tests in random order to shake out order dependence",
			"Makefile", replaceOnce(raceTests, strings.Replace(raceTests, " -race ", " -race -shuffle=on ", 1)), ""},
	}
}

// Each of gateEdits, made to a copy of the repository, is refused by the
// gate's rules (rules/gate, rules/proof) with one finding, read from the
// files as ci.yml, .ci/run and make run them; the safe one passes.
func TestGateRefusesEditsThatStopTheChecksGating(t *testing.T) {
	t.Parallel()
	checkGuardEdits(t, gateEdits(), copyWithSources, checkWorkflowsOf)
}
