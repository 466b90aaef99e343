package preflight

import (
	"os"
	"path/filepath"
	"testing"
)

// supplyEdits: edits that let the build fetch something not pinned to its
// content, which PS-SUP-001's pins of install commands do not see.
func supplyEdits() []guardEdit {
	const ciRunStep = "      - name: .ci/run (make lint, make smoke-local, make test)\n        run: bash .ci/run\n        env:\n"
	appendLine := func(l string) textEdit { return func(s string) string { return s + l + "\n" } }
	return []guardEdit{
		{"staticcheck at latest from ci.yml's env", "CI should lint with the newest staticcheck checks; the Makefile's pin is for laptops",
			".github/workflows/ci.yml", replaceOnce(ciRunStep, ciRunStep+"          STATICCHECK_VERSION: latest\n"), "PS-SUP-015"},
		{"an extra index for the team's mirror", "PyPI was down during a release; our mirror is the fallback",
			".github/requirements.txt", replaceOnce("moto[server]==5.2.1", "--extra-index-url https://pypi.internal.example.com/simple\nmoto[server]==5.2.1"), "PS-SUP-010"},
		{"GOFLAGS=-mod=mod in the Makefile", "dependabot's bumps leave go.sum short; let go fill it in",
			"Makefile", replaceOnce("GO        ?= go\n", "GO        ?= go\nexport GOFLAGS := -mod=mod\n"), "PS-SUP-016"},
		{"GONOSUMDB for a fork in .ci/run", "we build against our fork of aws-lambda-go, which sum.golang.org does not know",
			".ci/run", replaceOnce("make lint\n", "export GONOSUMDB=github.com/plantstore/*\nmake lint\n"), "PS-SUP-016"},
		{"go-version: stable in ci.yml", "test on the newest Go as soon as it ships",
			".github/workflows/ci.yml", replaceOnce("          go-version-file: go.mod\n", "          go-version: stable\n"), "PS-SUP-017"},
		{"classic-level's install script approved by name", "silence npm's install-scripts warning on every npm ci",
			"package.json", replaceOnce("  \"devDependencies\": {", "  \"allowScripts\": {\n    \"classic-level\": true\n  },\n  \"devDependencies\": {"), "PS-SUP-014"},
		{"dynalite from its GitHub main", "the fix for the emulator's TTL bug is merged but not released",
			"package.json", replaceOnce(`"dynalite": "4.0.0"`, `"dynalite": "github:architect/dynalite#main"`), "PS-SUP-013"},
		{"a lockfile entry from a fork's tarball", "take the patched dynalite from our fork until upstream releases",
			"package-lock.json", replaceOnce("    \"node_modules/dynalite\": {\n      \"version\": \"4.0.0\",\n", "    \"node_modules/dynalite\": {\n      \"version\": \"4.0.0\",\n      \"resolved\": \"https://github.com/plantstore/dynalite/archive/refs/heads/ttl.tar.gz\",\n"), "PS-SUP-012"},
		{"npm's registry set to a mirror", "the company proxy caches npm and is faster in CI",
			".npmrc", appendLine("registry=https://npm.internal.example.com/"), "PS-SUP-011"},
		{"the shared policies cloned in CI", "every team's CI should check against the platform team's newest policies",
			".ci/run", replaceOnce("make lint\n", "git clone --depth 1 https://github.com/example/policies .policies\nmake lint\n"), "PS-SUP-020"},
		{"a tool's install script saved, then run", "the vendor's installer picks the right binary for the runner",
			".ci/run", replaceOnce("make lint\n", "curl -fsSLo /tmp/install.sh https://example.com/install.sh\nbash /tmp/install.sh\nmake lint\n"), "PS-SUP-001"},
		{"a composite action for the toolchain", "one setup action for every job: Node and the SAM CLI, always their newest v4",
			".github/actions/setup/action.yml", appendLine("name: setup\ndescription: the toolchain\nruns:\n  using: composite\n  steps:\n    - uses: actions/setup-node@v4\n      with:\n        node-version: '20'\n"), "PS-WF-005"},
		{"an installer piped to bash in a composite action", "the setup action installs the newest uv for the Python tools",
			".github/actions/setup/action.yml", appendLine("name: setup\ndescription: the toolchain\nruns:\n  using: composite\n  steps:\n    - shell: bash\n      run: curl -LsSf https://astral.sh/uv/install.sh | sh\n"), "PS-SUP-001"},
		{"a Docker action on the distribution's image", "the schema check runs in the image the platform team publishes",
			".github/actions/schema/action.yml", appendLine("name: schema\ndescription: checks the OpenAPI document\nruns:\n  using: docker\n  image: docker://ghcr.io/example/schema-check:1\n"), "PS-WF-005"},
		{"a clone pinned to a commit (safe)", "the platform team's policies, at the commit we reviewed",
			".ci/run", replaceOnce("make lint\n", "git clone https://github.com/example/policies .policies\ngit -C .policies checkout 0123456789abcdef0123456789abcdef01234567\nmake lint\n"), ""},
		{"a pinned bump and newer toolchain lines (safe)", "a new staticcheck in the Makefile itself, Python 3.12 and Node 22 in CI",
			".github/workflows/ci.yml", allEdits(
				replaceOnce("          python-version: '3.11'\n", "          python-version: '3.12'\n"),
				replaceOnce("          node-version: '20'\n", "          node-version: '22'\n")), ""},
	}
}

// copySupplyFiles is copyCheckedFiles with npm's files: package.json, the
// lockfile, and an empty .npmrc for the edits that write one.
func copySupplyFiles(t *testing.T) string {
	t.Helper()
	dir := copyCheckedFiles(t)
	for _, f := range []string{"package.json", "package-lock.json"} {
		copyFile(t, filepath.Join(repoRoot, f), filepath.Join(dir, f), 0o644)
	}
	if err := os.WriteFile(filepath.Join(dir, ".npmrc"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Each of supplyEdits, made to a copy of the files the rules read, is
// refused with one finding of its rule (or, the safe one, passes).
func TestBuildFetchesOnlyPinnedSources(t *testing.T) {
	t.Parallel()
	checkGuardEdits(t, supplyEdits(), copySupplyFiles, checkWorkflowsOf)
}
