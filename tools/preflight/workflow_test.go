package preflight

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

var repoRoot = srctree.Path()

func loadWorkflow(t *testing.T, name string) *workflow {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", name))
	if err != nil {
		t.Fatal(err)
	}
	wf, err := parseWorkflow(name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return wf
}

func (w *workflow) job(t *testing.T, name string) job {
	t.Helper()
	j, ok := w.Jobs[name]
	if !ok {
		t.Fatalf("%s has no job %s", w.file, name)
	}
	return j
}

func (j job) step(t *testing.T, what string) step {
	t.Helper()
	for _, s := range j.Steps {
		if s.matches(what) {
			return s
		}
	}
	t.Fatalf("job %s has no step %s", j.name, what)
	return step{}
}

// stepsBetween are the steps after the one that matches from and before the
// one that matches to.
func (j job) stepsBetween(t *testing.T, from, to string) []step {
	t.Helper()
	start, end := -1, -1
	for i, s := range j.Steps {
		if start < 0 && s.matches(from) {
			start = i
		} else if start >= 0 && s.matches(to) {
			end = i
			break
		}
	}
	if start < 0 || end < 0 {
		t.Fatalf("job %s: no step %q followed by a step %q", j.name, from, to)
	}
	return j.Steps[start+1 : end]
}

func templateFunctions(t *testing.T) []string {
	t.Helper()
	tpl, err := samtemplate.Load(filepath.Join(repoRoot, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fns := tpl.Functions()
	if len(fns) == 0 {
		t.Fatal("template.yaml has no functions")
	}
	return fns
}

// The repository's workflows, .ci/run and Makefile keep every rule of
// CheckWorkflows (workflows.go says each rule and its source).
func TestWorkflowRules(t *testing.T) {
	t.Parallel()
	findings, err := Check(context.Background(), repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// An edit to one of the files CheckWorkflows reads: a function of the file's
// text. replaceOnce and friends make one; the test fails if the edit changes
// nothing (its anchor text is gone), so no row can pass by missing its mark.
type textEdit func(string) string

// apply makes the edit to file (relative to dir), which it must change.
func (e textEdit) apply(t *testing.T, dir, file string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(file))
	raw, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) { // an edit may write a new file
		t.Fatal(err)
	}
	edited := e(string(raw))
	if edited == string(raw) {
		t.Fatalf("the edit changes nothing in %s: its anchor text is gone; update the row", file)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	// A new file replaces the old one, keeping its mode: the old one may
	// be a link to the repository's (copyWithSources).
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp := path + ".edit"
	if err := os.WriteFile(tmp, []byte(edited), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(tmp, mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

func replaceOnce(old, new string) textEdit {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

// removeSpan cuts the text from the first `from` through the `to` after it.
func removeSpan(from, to string) textEdit {
	return func(s string) string {
		i := strings.Index(s, from)
		if i < 0 {
			return s
		}
		j := strings.Index(s[i:], to)
		if j < 0 {
			return s
		}
		return s[:i] + s[i+j+len(to):]
	}
}

// allEdits applies edits in turn; if one of them changes nothing, the whole
// edit changes nothing.
func allEdits(edits ...textEdit) textEdit {
	return func(s string) string {
		orig := s
		for _, e := range edits {
			t := e(s)
			if t == s {
				return orig
			}
			s = t
		}
		return s
	}
}

// Each row is a dangerous edit a review could miss; on a copy of the
// repository's files it must give a finding of each rule named. The rows
// cover every rule of workflows.go (TestWorkflowRules shows the repository
// itself has no finding, so each finding here comes from its edit).
type dangerousEdit struct {
	name  string
	file  string // relative to the repository root
	edit  textEdit
	rules []string // each must be the ID of a finding
}

func dangerousEdits() []dangerousEdit {
	const (
		deployOn     = "on:\n  push:\n    branches: [main]\n"
		topRead      = "\npermissions:\n  contents: read\n"
		checkout     = "actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0"
		buildNeeds   = "  build:\n    needs: ci\n"
		prodNeeds    = "  prod:\n    needs: dev\n"
		devNeeds     = "  dev:\n    needs: build\n"
		samBuild     = "      - name: sam build\n        run: sam build --config-env dev\n"
		ciRunStep    = "        run: bash .ci/run\n"
		smokeStep    = "      - name: smoke check with a real token\n"
		smokeCall    = "          make smoke URL=\"$(out ApiUrl)\" TOKEN=\"$token\"\n"
		setPipefail  = "set -euo pipefail\n"
		shellFlags   = ".SHELLFLAGS := -eu -o pipefail -c\n"
		ciCheckSteps = "      security-events: write\n    steps:\n      - uses: " + checkout + "\n        with:\n"
	)
	return []dangerousEdit{
		// 1. Triggers.
		{"pull_request_target with the PR's head checked out in a dev job", ".github/workflows/ci.yml", allEdits(
			replaceOnce("  pull_request:\n", "  pull_request_target:\n"),
			replaceOnce(ciCheckSteps, "      security-events: write\n    environment: dev\n    steps:\n      - uses: "+checkout+"\n        with:\n          ref: ${{ github.event.pull_request.head.sha }}\n"),
		), []string{"PS-WF-001", "PS-WF-002"}},
		{"workflow_run starts the deploy", ".github/workflows/deploy.yml",
			replaceOnce(deployOn, "on:\n  workflow_run:\n    workflows: [ci]\n    types: [completed]\n"), []string{"PS-WF-001", "PS-WF-002"}},
		{"deploys from any branch", ".github/workflows/deploy.yml", replaceOnce("    branches: [main]\n", "    branches: ['**']\n"), []string{"PS-WF-002"}},
		{"deploys from every branch but one", ".github/workflows/deploy.yml", replaceOnce("    branches: [main]\n", "    branches-ignore: [gh-pages]\n"), []string{"PS-WF-002"}},
		{"deploys on a tag too", ".github/workflows/deploy.yml", replaceOnce("    branches: [main]\n", "    branches: [main]\n    tags: ['v*']\n"), []string{"PS-WF-002"}},
		{"workflow_dispatch added to deploy.yml", ".github/workflows/deploy.yml", replaceOnce(deployOn, deployOn+"  workflow_dispatch:\n"), []string{"PS-WF-002"}},
		{"pull_request added to deploy.yml", ".github/workflows/deploy.yml", replaceOnce(deployOn, deployOn+"  pull_request:\n"), []string{"PS-WF-002"}},
		{"a nightly schedule added to deploy.yml", ".github/workflows/deploy.yml", replaceOnce(deployOn, deployOn+"  schedule:\n    - cron: '0 3 * * *'\n"), []string{"PS-WF-002"}},
		{"a secret in ci.yml's workflow env", ".github/workflows/ci.yml",
			replaceOnce(topRead, topRead+"\nenv:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n"), []string{"PS-WF-002"}},
		{"a secret read by ci.yml, which pull requests run", ".github/workflows/ci.yml",
			replaceOnce("          CI: 'true'\n", "          CI: 'true'\n          SLACK_WEBHOOK: ${{ secrets.SLACK_WEBHOOK }}\n"), []string{"PS-WF-002"}},
		// 2, 3. Permissions.
		{"top-level permissions: write-all", ".github/workflows/deploy.yml", replaceOnce(topRead, "\npermissions: write-all\n"), []string{"PS-WF-003"}},
		{"no top-level permissions", ".github/workflows/ci.yml", replaceOnce(topRead, "\n"), []string{"PS-WF-003"}},
		{"contents: write in the dev job", ".github/workflows/deploy.yml",
			replaceOnce("    environment: dev\n    permissions:\n      contents: read\n", "    environment: dev\n    permissions:\n      contents: write\n"), []string{"PS-WF-003"}},
		{"permissions: write-all in the build job", ".github/workflows/deploy.yml", replaceOnce(buildNeeds, buildNeeds+"    permissions: write-all\n"), []string{"PS-WF-003"}},
		{"security-events: write in the build job, which uploads no SARIF", ".github/workflows/deploy.yml",
			replaceOnce(buildNeeds, buildNeeds+"    permissions:\n      contents: read\n      security-events: write\n"), []string{"PS-WF-003"}},
		{"id-token: write at the top level", ".github/workflows/deploy.yml", replaceOnce(topRead, topRead+"  id-token: write\n"), []string{"PS-WF-004"}},
		{"id-token: write in the build job (no environment)", ".github/workflows/deploy.yml",
			replaceOnce(buildNeeds, buildNeeds+"    permissions:\n      contents: read\n      id-token: write\n"), []string{"PS-WF-004"}},
		// 4. unpinned-uses.
		{"checkout pinned to a tag", ".github/workflows/ci.yml", replaceOnce(checkout, "actions/checkout@v4"), []string{"PS-WF-005"}},
		{"checkout's SHA without the tag it stands for", ".github/workflows/ci.yml", replaceOnce(checkout, "actions/checkout@11d5960a326750d5838078e36cf38b85af677262"), []string{"PS-WF-005"}},
		{"a reusable workflow from another repository at a branch", ".github/workflows/deploy.yml",
			replaceOnce("    uses: ./.github/workflows/ci.yml\n", "    uses: plantstore/shared-workflows/.github/workflows/ci.yml@main\n"), []string{"PS-WF-005", "PS-WF-011"}},
		{"a Docker action by tag", ".github/workflows/deploy.yml",
			replaceOnce(samBuild, "      - uses: docker://public.ecr.aws/sam/build-provided.al2023:latest\n"+samBuild), []string{"PS-WF-005"}},
		// 5. artipacked.
		{"checkout without persist-credentials: false in the build job", ".github/workflows/deploy.yml",
			replaceOnce("        with:\n          persist-credentials: false\n", ""), []string{"PS-WF-006"}},
		{"checkout with persist-credentials: true", ".github/workflows/ci.yml",
			replaceOnce("persist-credentials: false", "persist-credentials: true"), []string{"PS-WF-006"}},
		// 6. cache-poisoning.
		{"setup-go cache: true in the build job", ".github/workflows/deploy.yml", replaceOnce("          cache: false\n", "          cache: true\n"), []string{"PS-WF-007"}},
		{"setup-go's cache input dropped in the dev job (on by default)", ".github/workflows/deploy.yml",
			replaceOnce("          cache: false\n      - uses: aws-actions/setup-sam@f84ec7d548307efafe33230528756de3c5841a17 # v2\n        with:\n          version: 1.161.1\n          use-installer: true\n      - uses: actions/download-artifact",
				"      - uses: aws-actions/setup-sam@f84ec7d548307efafe33230528756de3c5841a17 # v2\n        with:\n          version: 1.161.1\n          use-installer: true\n      - uses: actions/download-artifact"),
			[]string{"PS-WF-007"}},
		{"actions/cache in the build job", ".github/workflows/deploy.yml",
			replaceOnce(samBuild, "      - uses: actions/cache@0057852bfaa89a56745cba8c7296529d2fc39830 # v4.3.0\n        with:\n          path: ~/.cache/go-build\n          key: go-build\n"+samBuild),
			[]string{"PS-WF-007"}},
		{"setup-node with cache: npm in the build job", ".github/workflows/deploy.yml",
			replaceOnce(samBuild, "      - uses: actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020 # v4.4.0\n        with:\n          node-version: '20'\n          cache: npm\n"+samBuild),
			[]string{"PS-WF-007"}},
		// 7. template-injection.
		{"the head commit's message in a run: script", ".github/workflows/deploy.yml",
			replaceOnce("        run: sam build --config-env dev\n", "        run: |\n          echo \"building: ${{ github.event.head_commit.message }}\"\n          sam build --config-env dev\n"),
			[]string{"PS-WF-008"}},
		{"a variable expanded into sam deploy's script again", ".github/workflows/deploy.yml",
			replaceOnce(`--s3-bucket "$ARTIFACTS_BUCKET"`, `--s3-bucket "${{ vars.ARTIFACTS_BUCKET }}"`), []string{"PS-WF-008"}},
		// 8. continue-on-error, shells, scripts.
		{"continue-on-error: true on the ci job's checks step", ".github/workflows/ci.yml",
			replaceOnce(ciRunStep, ciRunStep+"        continue-on-error: true\n"), []string{"PS-WF-009"}},
		{"continue-on-error: true on the ci job", ".github/workflows/ci.yml",
			replaceOnce("    timeout-minutes: 45\n", "    timeout-minutes: 45\n    continue-on-error: true\n"), []string{"PS-WF-009"}},
		{"no default shell: GitHub's bash -e without pipefail", ".github/workflows/deploy.yml",
			replaceOnce("defaults:\n  run:\n    shell: bash\n", ""), []string{"PS-WF-010"}},
		{"the checks step's shell without -e", ".github/workflows/ci.yml", replaceOnce(ciRunStep, ciRunStep+"        shell: bash {0}\n"), []string{"PS-WF-010"}},
		{"sam build || echo in a run: script", ".github/workflows/deploy.yml",
			replaceOnce("        run: sam build --config-env dev\n", "        run: sam build --config-env dev || echo 'sam build failed'\n"), []string{"PS-SH-001"}},
		{"set +o pipefail in a run: script", ".github/workflows/deploy.yml",
			replaceOnce("        run: tar -cf sam-build.tar .aws-sam\n", "        run: |\n          set +o pipefail\n          tar -cf sam-build.tar .aws-sam\n"), []string{"PS-SH-001"}},
		{"make test || echo failed in .ci/run", ".ci/run", replaceOnce("make test\n", "make test || echo failed\n"), []string{"PS-SH-001", "PS-CI-001"}},
		{"make lint || true in .ci/run", ".ci/run", replaceOnce("make lint\n", "make lint || true\n"), []string{"PS-SH-001", "PS-CI-001"}},
		{"set +e in .ci/run", ".ci/run", replaceOnce(setPipefail, setPipefail+"set +e\n"), []string{"PS-SH-001"}},
		{"a trap that exits 0 in .ci/run", ".ci/run", replaceOnce(setPipefail, setPipefail+"trap 'exit 0' EXIT\n"), []string{"PS-SH-001"}},
		{".ci/run without set -euo pipefail", ".ci/run", replaceOnce(setPipefail, ""), []string{"PS-CI-001"}},
		{".ci/run with set -eu but no pipefail", ".ci/run", replaceOnce(setPipefail, "set -eu\n"), []string{"PS-CI-001"}},
		{"make test inside an if", ".ci/run", replaceOnce("make test\n", "if make test; then echo passed; fi\n"), []string{"PS-CI-001"}},
		{"make test in the background", ".ci/run", replaceOnce("make test\n", "make test &\n"), []string{"PS-CI-001"}},
		{"make test negated", ".ci/run", replaceOnce("make test\n", "! make test\n"), []string{"PS-CI-001"}},
		{"make smoke-local negated", ".ci/run", replaceOnce("make smoke-local\n", "! make smoke-local\n"), []string{"PS-SH-001"}},
		{"make test in a subshell || true", ".ci/run", replaceOnce("make test\n", "(make test) || true\n"), []string{"PS-CI-001", "PS-SH-001"}},
		{"make lint on the left of &&", ".ci/run", replaceOnce("make lint\nmake smoke-local\n", "make lint && make smoke-local\n"), []string{"PS-CI-001", "PS-SH-001"}},
		{"make SHELL=true test", ".ci/run", replaceOnce("make test\n", "make SHELL=true test\n"), []string{"PS-MK-001"}},
		{"make -i test (ignore errors)", ".ci/run", replaceOnce("make test\n", "make -i test\n"), []string{"PS-CI-001"}},
		{"exit 0 before the checks", ".ci/run", replaceOnce("make lint\n", "exit 0\nmake lint\n"), []string{"PS-CI-001"}},
		{"a function named make", ".ci/run", replaceOnce(setPipefail, setPipefail+"make() { echo skipped; }\n"), []string{"PS-CI-001"}},
		{"ci.yml runs make test instead of .ci/run", ".github/workflows/ci.yml", replaceOnce(ciRunStep, "        run: make test\n"), []string{"PS-CI-001"}},
		{"ci.yml's checks step skipped by an if", ".github/workflows/ci.yml", replaceOnce(ciRunStep, ciRunStep+"        if: false\n"), []string{"PS-CI-001"}},
		{"ci.yml cannot be called", ".github/workflows/ci.yml", replaceOnce("  workflow_call:\n", ""), []string{"PS-CI-001"}},
		{"- prefix on the test recipe's go test", "Makefile", replaceOnce(raceTests, "\t-"+raceTests[1:]), []string{"PS-MK-001"}},
		{"- prefix in fuzz, which make test runs through $(MAKE)", "Makefile", replaceOnce("\t@logs=$$(mktemp -d);", "\t-@logs=$$(mktemp -d);"), []string{"PS-MK-001"}},
		{".SHELLFLAGS without pipefail", "Makefile", replaceOnce(shellFlags, ".SHELLFLAGS := -eu -c\n"), []string{"PS-MK-001"}},
		{".SHELLFLAGS without -e", "Makefile", replaceOnce(shellFlags, ".SHELLFLAGS := -u -o pipefail -c\n"), []string{"PS-MK-001"}},
		{"a target-specific .SHELLFLAGS for test", "Makefile", replaceOnce(shellFlags, shellFlags+"test: .SHELLFLAGS := -c\n"), []string{"PS-MK-001"}},
		{".IGNORE: test", "Makefile", replaceOnce(shellFlags, shellFlags+".IGNORE: test\n"), []string{"PS-MK-001"}},
		{"MAKEFLAGS += -i", "Makefile", replaceOnce(shellFlags, shellFlags+"MAKEFLAGS += -i\n"), []string{"PS-MK-001"}},
		{"SHELL := true, which runs no recipe line", "Makefile", replaceOnce("SHELL := bash\n", "SHELL := true\n"), []string{"PS-MK-001"}},
		{"a target-specific SHELL for test", "Makefile", replaceOnce(shellFlags, shellFlags+"test: SHELL := /bin/echo\n"), []string{"PS-MK-001"}},
		{"make test runs fuzz with -i", "Makefile", replaceOnce("$(MAKE) --no-print-directory fuzz", "$(MAKE) --no-print-directory -i fuzz"), []string{"PS-MK-001"}},
		{"go vet || true in the lint recipe", "Makefile", replaceOnce("\tGOWORK=off $(GO) vet ./...\n", "\tGOWORK=off $(GO) vet ./... || true\n"), []string{"PS-SH-001"}},
		// 9. The deploy order.
		{"prod needs only build, not dev", ".github/workflows/deploy.yml", replaceOnce(prodNeeds, "  prod:\n    needs: build\n"), []string{"PS-WF-011"}},
		{"the smoke step removed from dev", ".github/workflows/deploy.yml", removeSpan(smokeStep, smokeCall), []string{"PS-WF-011"}},
		{"the smoke step skipped by an if", ".github/workflows/deploy.yml", replaceOnce(smokeStep, smokeStep+"        if: false\n"), []string{"PS-WF-011"}},
		{"make smoke || true", ".github/workflows/deploy.yml",
			replaceOnce(smokeCall, "          make smoke URL=\"$(out ApiUrl)\" TOKEN=\"$token\" || true\n"), []string{"PS-SH-001"}},
		{"if: always() on prod", ".github/workflows/deploy.yml", replaceOnce(prodNeeds, prodNeeds+"    if: always()\n"), []string{"PS-WF-011"}},
		{"if: ${{ !Cancelled() }} on dev", ".github/workflows/deploy.yml", replaceOnce(devNeeds, devNeeds+"    if: ${{ !Cancelled() }}\n"), []string{"PS-WF-011"}},
		{"dev needs nothing", ".github/workflows/deploy.yml", replaceOnce(devNeeds, "  dev:\n"), []string{"PS-WF-011"}},
	}
}

func TestWorkflowRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	edits := dangerousEdits()
	if len(edits) < 20 {
		t.Fatalf("%d dangerous edits, want at least 20", len(edits))
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := copyCheckedFiles(t)
			tc.edit.apply(t, dir, tc.file)
			findings, err := Check(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range tc.rules {
				if !slices.ContainsFunc(findings, func(f Finding) bool { return f.ID == id }) {
					t.Errorf("no %s finding; the findings:", id)
					for _, f := range findings {
						t.Log(f)
					}
				}
			}
		})
	}
}

// copyCheckedFiles copies what Check reads to a new directory.
func copyCheckedFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files, _ := filepath.Glob(filepath.Join(repoRoot, ".github", "workflows", "*.yml"))
	for _, f := range files {
		copyFile(t, f, filepath.Join(dir, ".github", "workflows", filepath.Base(f)), 0o644)
	}
	copyFile(t, filepath.Join(repoRoot, ".ci", "run"), filepath.Join(dir, ".ci", "run"), 0o755)
	// The credentials rule reads the templates; the pins rule, the
	// requirements that pip installs.
	// The stacks' rules, samconfig.toml's variants, the reviewed
	// references and the managed policies the roles name.
	managed, _ := filepath.Glob(filepath.Join(repoRoot, "tools/preflight/testdata/managed/*.json"))
	for _, f := range []string{"Makefile", "template.yaml", "pipeline/roles.yaml", ".github/requirements.txt", "samconfig.toml", AllowlistFile, StatefulFile, accessFile} {
		managed = append(managed, filepath.Join(repoRoot, f))
	}
	for _, f := range managed {
		rel, _ := filepath.Rel(repoRoot, f)
		copyFile(t, f, filepath.Join(dir, rel), 0o644)
	}
	return dir
}

func (s step) name() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Uses != "" {
		return s.Uses
	}
	return s.Run
}

// matches says whether a step is the one a test names: by its action
// (owner/repo, any version) or by the text of its name or script.
func (s step) matches(what string) bool {
	if strings.Contains(what, "/") {
		return s.action() == what
	}
	return strings.Contains(s.Name, what) || strings.Contains(s.Run, what)
}
