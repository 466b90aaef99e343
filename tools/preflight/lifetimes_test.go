package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lifetimeEdits: edits that would keep a credential or the build beyond
// docs/deploy.md's ceiling, or cut one below its floor; and one within.
func lifetimeEdits() []guardEdit {
	const (
		devSession  = "          role-session-name: plant-store-dev-${{ github.run_id }}\n"
		prodSession = "          role-session-name: plant-store-prod-${{ github.run_id }}\n"
		retention   = "          retention-days: 7\n"
		tokenUnits  = "      AccessTokenValidity: 60\n      TokenValidityUnits:\n        AccessToken: minutes\n"
	)
	return []guardEdit{
		{"a twelve-hour prod session", "prod's reviewer approved late and the session ran out mid-deploy",
			".github/workflows/deploy.yml", replaceOnce(prodSession, prodSession+"          role-duration-seconds: 43200\n"), "PS-LIFE-002"},
		{"a fifteen-minute dev session", "least privilege in time: dev's deploy needs minutes",
			".github/workflows/deploy.yml", replaceOnce(devSession, devSession+"          role-duration-seconds: 900\n"), "PS-LIFE-002"},
		{"the deploy role's sessions for twelve hours", "let the prod job's longer session through IAM",
			"pipeline/roles.yaml", replaceOnce("      MaxSessionDuration: 3600\n", "      MaxSessionDuration: 43200\n"), "PS-LIFE-001"},
		{"the build kept a day", "artifact storage is billed; nobody reads the tar after the run",
			".github/workflows/deploy.yml", replaceOnce(retention, "          retention-days: 1\n"), "PS-LIFE-004"},
		{"the build kept by the repository's default", "let the repository's setting decide, as for every other artifact",
			".github/workflows/deploy.yml", replaceOnce(retention, ""), "PS-LIFE-004"},
		{"day-long access tokens", "token requests are billed per request: let partners cache a token for a day",
			"template.yaml", replaceOnce(tokenUnits, "      AccessTokenValidity: 24\n      TokenValidityUnits:\n        AccessToken: hours\n"), "PS-LIFE-003"},
		{"the build kept two weeks (safe)", "a reviewer on holiday for a week still finds the build",
			".github/workflows/deploy.yml", replaceOnce(retention, "          retention-days: 14\n"), ""},
	}
}

// Each of lifetimeEdits, made to a copy of the files the rules read, is
// refused with one line of its rule (or, the safe one, passes).
func TestLifetimeRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	skipMutantsInShort(t)
	needEvaluator(t)
	checkGuardEdits(t, lifetimeEdits(), copyCheckedFiles, checkWorkflowsOf)
}

// docs/deploy.md's "Lifetimes" states the floors and ceilings the rules
// are handed (input.evidence_floor), and the log retention row the ceiling.
func TestDeployDocStatesTheLifetimes(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(raw), "\n## What an incident needs\n")
	section, _, _ = strings.Cut(section, "\n## ")
	row := func(name string) string {
		for _, l := range strings.Split(section, "\n") {
			if strings.HasPrefix(l, "| "+name) {
				return l
			}
		}
		t.Errorf("docs/deploy.md's \"What an incident needs\" has no row %q", name)
		return ""
	}
	for _, c := range []struct {
		row   string
		cells []string
	}{
		{"deploy session", []string{fmt.Sprintf("| **%d** s | **%d** s |", deploySessionMinSeconds, deploySessionMaxSeconds)}},
		{"Cognito access and ID tokens", []string{fmt.Sprintf("| **%d** minutes | **%d** minutes |", tokenMinMinutes, tokenMaxMinutes)}},
		{"Cognito refresh tokens", []string{fmt.Sprintf("| none | **%d** days |", refreshTokenMaxDays)}},
		{"build artifact", []string{fmt.Sprintf("| **%d** days | **%d** days |", artifactMinDays, artifactMaxDays)}},
		{"log retention", []string{fmt.Sprintf("at most **%d**", retentionCeilingDays)}},
	} {
		for _, want := range c.cells {
			if got := row(c.row); !strings.Contains(got, want) {
				t.Errorf("the row %s does not say %q, the rules' bounds", c.row, want)
			}
		}
	}
}
