package preflight

import (
	"context"
	"testing"
)

// raceTests is the start of make test's race phase, where the edits of the
// test recipe take hold.
const raceTests = "\t$(TEST_ENV) GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1"

// A guardEdit is an edit a teammate could plausibly make, with the motive
// they would give. A dangerous one must be refused with exactly one finding,
// of the rule with ID rule; a safe one (rule "") with none.
type guardEdit struct {
	name, motive string
	file         string // relative to the repository root
	edit         textEdit
	rule         string
}

// checkGuardEdits applies each edit to a copy of the repository that
// newCopy makes, and runs check on the copy.
func checkGuardEdits(t *testing.T, edits []guardEdit, newCopy func(*testing.T) string, check func(*testing.T, string, guardEdit) []Finding) {
	t.Helper()
	dangerous, safe := 0, 0
	for _, tc := range edits {
		if tc.rule == "" {
			safe++
		} else {
			dangerous++
		}
	}
	if dangerous < 5 || safe < 1 {
		t.Fatalf("%d dangerous and %d safe edits; want at least 5 and 1", dangerous, safe)
	}
	for _, tc := range edits {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := newCopy(t)
			tc.edit.apply(t, dir, tc.file)
			findings := check(t, dir, tc)
			switch {
			case tc.rule == "" && len(findings) > 0:
				t.Errorf("a safe edit (%s) is refused:", tc.motive)
				for _, f := range findings {
					t.Error(f)
				}
			case tc.rule == "":
				t.Logf("safe: %s", tc.motive)
			case len(findings) != 1 || findings[0].ID != tc.rule:
				t.Errorf("want one %s finding, got %d:", tc.rule, len(findings))
				for _, f := range findings {
					t.Error(f)
				}
			default:
				t.Logf("motive: %s\ncaught: %s", tc.motive, findings[0])
			}
		})
	}
}

// checkWorkflowsOf is CheckWorkflows as a check of checkGuardEdits.
func checkWorkflowsOf(t *testing.T, dir string, _ guardEdit) []Finding {
	t.Helper()
	findings, err := Check(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return findings
}
