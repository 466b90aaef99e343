package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// copyWithEdit is a copy of what the rules read with ci.yml's checkout
// pinned to a tag, a finding of PS-WF-005.
func copyWithEdit(t *testing.T) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, ".github", "workflows", "ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	pin := regexp.MustCompile(`actions/checkout@[0-9a-f]{40}`).FindString(string(raw))
	if pin == "" {
		t.Fatal("ci.yml has no pinned checkout to unpin")
	}
	return checkedMutant(t, edit{File: ".github/workflows/ci.yml", Old: pin, New: "actions/checkout@v4"})
}

// A finding is one line, file:line: ID: danger; fix: ..., and exit 1.
func TestTextFinding(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if code := Main(context.Background(), []string{"-C", copyWithEdit(t)}, &out, &errs); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errs.String())
	}
	line := regexp.MustCompile(`(?m)^\.github/workflows/ci\.yml:\d+: PS-WF-005: .+; fix: .+$`)
	if !line.MatchString(out.String()) {
		t.Errorf("no line `.github/workflows/ci.yml:N: PS-WF-005: ...; fix: ...` in:\n%s", out.String())
	}
}

// --format sarif writes what GitHub code scanning reads: version 2.1.0,
// the driver's rules with ids and helpUri, and each result's ruleId, level,
// message and location (uri, startLine), a rule of the driver.
func TestSARIF(t *testing.T) {
	t.Parallel()
	var out, errs bytes.Buffer
	if code := Main(context.Background(), []string{"-C", copyWithEdit(t), "--format", "sarif"}, &out, &errs); code != 1 {
		t.Fatalf("exit %d, want 1; stderr: %s", code, errs.String())
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string                `json:"ruleId"`
				Level     string                `json:"level"`
				Message   struct{ Text string } `json:"message"`
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string } `json:"artifactLocation"`
						Region           struct {
							StartLine int `json:"startLine"`
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	if log.Version != "2.1.0" || len(log.Runs) != 1 {
		t.Fatalf("version %q, %d runs; want 2.1.0 and one", log.Version, len(log.Runs))
	}
	rules := map[string]bool{}
	for _, r := range log.Runs[0].Tool.Driver.Rules {
		if r.ID == "" || !strings.HasPrefix(r.HelpURI, "https://") {
			t.Errorf("rule %+v: want an id and an https helpUri", r)
		}
		rules[r.ID] = true
	}
	found := false
	for _, r := range log.Runs[0].Results {
		loc := r.Locations[0].PhysicalLocation
		if !rules[r.RuleID] || r.Level != "error" || r.Message.Text == "" || loc.ArtifactLocation.URI == "" || loc.Region.StartLine < 1 {
			t.Errorf("result %+v: want a driver rule's id, level error, a message, a uri and a startLine", r)
		}
		found = found || (r.RuleID == "PS-WF-005" && loc.ArtifactLocation.URI == ".github/workflows/ci.yml")
	}
	if !found {
		t.Errorf("no PS-WF-005 result on .github/workflows/ci.yml")
	}
}
