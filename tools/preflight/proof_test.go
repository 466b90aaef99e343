package preflight

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

// currentProof is what CI proves now, as rules/lib/proof.rego measures it
// from the facts of the repository at root.
func currentProof(t *testing.T, root string) map[string]any {
	t.Helper()
	b, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	facts, err := Facts(root)
	if err != nil {
		t.Fatal(err)
	}
	opts := []func(*rego.Rego){rego.Query("data.preflight.lib.proof.current"), rego.SetRegoVersion(ast.RegoV1), rego.Input(facts)}
	for p, m := range b.TestModules() {
		if filepath.Base(filepath.Dir(p)) == "lib" {
			opts = append(opts, rego.ParsedModule(m))
		}
	}
	rs, err := rego.New(opts...).Eval(context.Background())
	if err != nil || len(rs) != 1 {
		t.Fatalf("the proof: %v (%d results)", err, len(rs))
	}
	proof, _ := rs[0].Expressions[0].Value.(map[string]any)
	return proof
}

// What CI proves is measured against the reviewed snapshot
// (testdata/proof.json) by rules/proof; UPDATE_PREFLIGHT=1 (make
// preflight-accept) writes the snapshot. Every part of it is measured:
// an empty part would let the rules compare nothing.
func TestProofIsTheReviewedSnapshot(t *testing.T) {
	t.Parallel()
	proof := currentProof(t, repoRoot)
	if os.Getenv("UPDATE_PREFLIGHT") == "1" {
		raw, err := json.MarshalIndent(proof, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repoRoot, proofFile), append(raw, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", proofFile)
		return
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot, proofFile))
	if err != nil {
		t.Fatalf("%v (make preflight-accept writes it)", err)
	}
	var reviewed map[string]any
	if err := json.Unmarshal(raw, &reviewed); err != nil {
		t.Fatalf("%s: %v", proofFile, err)
	}
	for _, k := range []string{"fuzz", "lint", "staticcheck", "gosec", "skips", "packages", "race"} {
		if v, ok := reviewed[k]; !ok || v == nil || isEmpty(v) {
			t.Errorf("%s has no %s: the rules would compare nothing", proofFile, k)
		}
	}
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case []any:
		return len(v) == 0
	case map[string]any:
		return len(v) == 0
	}
	return false
}

// proofEdits: edits that leave every check running but proving less than
// the reviewed proof.
func proofEdits() []guardEdit {
	return []guardEdit{
		{"a staticcheck check excluded", "the SDK's deprecated fields flood staticcheck until we migrate",
			"Makefile", replaceOnce("$(TOOLS)/staticcheck ./...", "$(TOOLS)/staticcheck -checks=inherit,-SA1019 ./..."), "PS-CI-023"},
		{"a gosec rule excluded", "G304 flags every file the local tools open by the name their user gives",
			"Makefile", replaceOnce("$(TOOLS)/gosec -quiet $$pkgs", "$(TOOLS)/gosec -quiet -exclude=G304 $$pkgs"), "PS-CI-024"},
		{"fuzz time cut in the Makefile", "make test takes too long on a laptop; 2000 executions find the shallow bugs",
			"Makefile", replaceOnce("FUZZTIME  ?= 20000x", "FUZZTIME  ?= 2000x"), "PS-CI-021"},
		{"fuzz time cut in CI's environment", "CI minutes cost money; fuzz less on every push",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: 'true'\n          FUZZTIME: 500x\n"), "PS-CI-021"},
		{"a fuzz target dropped", "FuzzClaims overlaps FuzzVerifyHeader, which parses the claims too",
			"Makefile", replaceOnce(" ./internal/auth:FuzzClaims", ""), "PS-CI-020"},
		{"the browser test skipped in CI", "Chromium on the runner flakes; the page is tested by hand before a release",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: 'true'\n          NO_BROWSER: '1'\n"), "PS-CI-025"},
		{"CI=false for the checks", "let the emulator tests skip when moto's download fails on the runner",
			".github/workflows/ci.yml", replaceOnce("          CI: 'true'\n", "          CI: 'false'\n"), "PS-CI-025"},
		{"tests filtered by a build tag", "keep the slow integration tests behind a tag and run them nightly",
			"Makefile", replaceOnce(raceTests, strings.Replace(raceTests, " -race ", " -tags=fast -race ", 1)), "PS-CI-002"},
		{"a package moved into RACE_FREE", "httpapi's tests are three times slower under -race",
			"Makefile", replaceOnce("RACE_FREE := ./internal/plant", "RACE_FREE := ./internal/httpapi ./internal/plant"), "PS-CI-026"},
		{"the samlocal module's tidy check dropped", "samlocal's go.mod hardly changes; its tidy check only slows lint",
			"Makefile", replaceOnce("\tGOWORK=off $(GO) -C samlocal mod tidy -diff\n", ""), "PS-CI-022"},
		{"a package cut off by a build constraint", "bin/token is a developer's helper: build it only with -tags dev",
			"tools/cmd/token/main.go", replaceOnce("\npackage main", "\n//go:build dev\n\npackage main"), "PS-CI-027"},
		{"fuzz time raised (safe)", "fuzz deeper: 40000 executions still fit the CI budget",
			"Makefile", replaceOnce("FUZZTIME  ?= 20000x", "FUZZTIME  ?= 40000x"), ""},
		// A step that still stands in the Makefile but runs only when a
		// condition holds proves only what that condition lets through.
		{"staticcheck only on main", "staticcheck takes a minute; pull requests get it when they merge",
			"Makefile", replaceOnce("\t$(TOOLS)/staticcheck ./...", "\t[ \"$${GITHUB_REF:-}\" != refs/heads/main ] || $(TOOLS)/staticcheck ./..."), "PS-CI-022"},
		{"gosec's stamp keyed on its binary alone", "hashing every Go file takes a second; the gosec binary is what changes",
			"Makefile", replaceOnce("$(call clean-before,gosec,sha256sum $(TOOLS)/gosec; $(GO_INPUTS),", "$(call clean-before,gosec,sha256sum $(TOOLS)/gosec,"), "PS-CI-022"},
		{"the edge variant's cfn-lint only when asked", "the edge parameters change once a year; lint them with EDGE=1",
			"Makefile", replaceOnce("\t@$(call clean-before,cfn-lint-edge,", "\t@[ -z \"$${EDGE:-}\" ] || $(call clean-before,cfn-lint-edge,"), "PS-CI-022"},
		{"the race phase only on big runners", "the race phase needs four cores to finish in time; small runners skip it",
			"Makefile", replaceOnce(raceTests, "\t[ \"$$(nproc)\" -lt 4 ] || "+raceTests[1:]), "PS-CI-002"},
		{"shellcheck where it is installed (safe)", "lint .ci/run's shell on the laptops that have shellcheck",
			"Makefile", replaceOnce("\t$(TOOLS)/actionlint .github/workflows/*.yml\n", "\t$(TOOLS)/actionlint .github/workflows/*.yml\n\t! command -v shellcheck >/dev/null || shellcheck .ci/run\n"), ""},
	}
}

// Each of proofEdits, made to a copy of the repository, is refused with one
// finding of its rule, measured against the reviewed proof; the safe one
// (more proof) passes.
func TestProofRefusesEditsThatProveLess(t *testing.T) {
	t.Parallel()
	checkGuardEdits(t, proofEdits(), copyWithSources, checkWorkflowsOf)
}
