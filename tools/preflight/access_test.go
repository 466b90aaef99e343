package preflight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every role and boundary reaches only its own stacks, and its access there
// is the reviewed snapshot: the IAM rules over the evaluator's answers for
// every variant as Check has them (kept by the content of the stacks'
// inputs and of this executable, stacks.go, and shared with every Check of
// this repository in the package). UPDATE_PREFLIGHT=1 (make
// preflight-accept) asks the evaluator afresh and writes the snapshot
// instead, once nothing reaches outside.
func TestAccessIsTheReviewedSnapshot(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	if os.Getenv("UPDATE_PREFLIGHT") != "1" {
		part, err := stacksOf(repoRoot)
		if err != nil {
			t.Fatal(err)
		}
		if granted, _ := part.access["granted"].([]any); len(granted) == 0 {
			t.Fatal("no role may do anything: the enumeration is broken")
		}
		findings, err := Check(context.Background(), repoRoot)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range findings {
			if strings.HasPrefix(f.ID, "PS-IAM-") {
				t.Error(f)
			}
		}
		return
	}
	all := allVariants(t)
	findings, now := iamFindings(t, all, all, committedAllowlist(t), nil)
	if len(now.lines) == 0 {
		t.Fatal("no role may do anything: the enumeration is broken")
	}
	for _, f := range findings {
		if f.ID != "PS-IAM-002" {
			t.Error(f)
		}
	}
	if t.Failed() {
		t.Fatal("the snapshot is not written while a role reaches beyond its stacks")
	}
	if err := writeAccess(repoRoot, now.lines); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d allowed requests", accessFile, len(now.lines))
}

// Each widened statement is refused, naming the role, the action and the
// resource: reach into the other environment, another app or account is
// refused outright, and new access within the stack until it is reviewed.
// Asked for dev (with prod the other environment), to keep make test quick.
func TestAccessRefusesEveryWidening(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	const stmt = "              - Sid: Widened\n                Effect: Allow\n                Action: %s\n                Resource: '*'\n"
	widen := func(after, action string) edit {
		return edit{"pipeline/roles.yaml", after, "            Statement:\n", "            Statement:\n" + fmt.Sprintf(stmt, action)}
	}
	snapshot, err := readAccess(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	var devLines []string
	for _, l := range snapshot {
		if strings.HasPrefix(l, "dev ") {
			devLines = append(devLines, l)
		}
	}
	cases := []struct {
		name  string
		edits []edit
		want  [][2]string // where, says
	}{
		{"the execution role widened", []edit{
			widen("  CloudFormationExecutionRole:", "cloudwatch:*"),
		}, [][2]string{{"PS-IAM-001 CloudFormationExecutionRole", "reaches beyond its own stacks: cloudwatch ("}}},
		{"the boundary and a function's role widened", []edit{
			{"pipeline/roles.yaml", "  PermissionsBoundary:", "        Statement:\n", "        Statement:\n          - Effect: Allow\n            Action: [secretsmanager:GetSecretValue, codedeploy:*, wafv2:*]\n            Resource: '*'\n"},
			{"template.yaml", "Sid: PutAndReadPlants", "                  - dynamodb:GetItem\n", "                  - dynamodb:GetItem\n                  - dynamodb:DeleteItem\n"},
		}, [][2]string{
			{"PS-IAM-001 PermissionsBoundary", "reaches beyond its own stacks: codedeploy ("},
			{"PS-IAM-001 PermissionsBoundary", "wafv2 ("},
			{"PS-IAM-002 testdata/access.txt", "secretsmanager (5, first secretsmanager:GetSecretValue"},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			envs := loadMutant(t, mutant(t, c.edits...), "dev", "prod")
			// And a reach entry that acknowledges nothing is stale.
			allow := committedAllowlist(t)
			allow.Entries = append(allow.Entries, AllowEntry{Kind: kindReach, What: "dev CreatePlantRole s3", Reason: "nothing"})
			findings, _ := iamFindings(t, envs[:1], envs, allow, devLines)
			for _, w := range c.want {
				wantFinding(t, findings, w[0], w[1])
			}
			wantFinding(t, findings, `PS-IAM-001 reach "dev CreatePlantRole s3"`, "is stale")
			// createplant's role asks for DeleteItem as well, but dev's
			// boundary allows only PutItem and GetItem: no new access.
			for _, f := range findings {
				if strings.Contains(f.String(), "dev CreatePlantRole:") {
					t.Errorf("the boundary should hold createplant's role: %s", f)
				}
			}
		})
	}
}

// compareAccess is PS-IAM-002's findings for a snapshot and the access
// now, for the tests that ask it of a part of the snapshot.
func compareAccess(snapshot, now []string) ([]Finding, error) {
	b, err := LoadBook()
	if err != nil {
		return nil, err
	}
	fs, err := b.Eval(context.Background(), map[string]any{"access": accessFacts(snapshot, accessAnswers{lines: now})})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return f.ID != "PS-IAM-002" }), nil
}

// iamFindings are the IAM rules' findings for the variants envs (all the
// variants, whose stacks they must not reach) against the snapshot's
// lines, as Check would give them: the book's over the evaluator's
// answers, and those still in Go.
func iamFindings(t *testing.T, envs, all []env, allow *Allowlist, snapshot []string) ([]Finding, accessAnswers) {
	t.Helper()
	now, err := effectiveAccess(envs, all)
	if err != nil {
		t.Fatal(err)
	}
	return iamBookFindings(t, envs, map[string]any{"access": accessFacts(snapshot, now), "allowlist": allowlistFacts(allow)}), now
}

// iamBookFindings are the IAM rules' findings (PS-IAM-*) for the facts, with
// the variants' stacks, whose lines they name.
func iamBookFindings(t *testing.T, envs []env, facts map[string]any) []Finding {
	t.Helper()
	places := map[string]map[string]int{}
	for _, file := range credentialTemplates {
		places[file] = logicalIDLines(filepath.Join(envs[0].root, file))
	}
	b, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	facts["stacks"] = stacksFacts(envs, places)
	fs, err := b.Eval(context.Background(), facts)
	if err != nil {
		t.Fatal(err)
	}
	return slices.DeleteFunc(fs, func(f Finding) bool { return !strings.HasPrefix(f.ID, "PS-IAM-") })
}

// writeAccess writes the snapshot.
func writeAccess(root string, lines []string) error {
	return os.WriteFile(filepath.Join(root, accessFile), []byte(accessHeader+strings.Join(lines, "\n")+"\n"), 0o644)
}
