package preflight

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/fixtures"
)

// The repository passes every rule of the book and every rule still in Go.
func TestRepositoryPasses(t *testing.T) {
	t.Parallel()
	findings, err := Check(context.Background(), repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		t.Error(f)
	}
}

// The stacks' rules name the line of template.yaml or pipeline/roles.yaml
// a person edits, never the translated template's, and an acceptance in
// place, with its reason, takes the one finding it names.
func TestStackFindingsNameTheLineEdited(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	const permission = "  OpenPermission:\n    Type: AWS::Lambda::Permission\n    Properties:\n      Action: lambda:InvokeFunction\n" +
		"      FunctionName: !Ref CreatePlantFunction.Alias\n      Principal: '*'\n\n  PlantsApi:\n"
	root := checkedMutant(t,
		edit{"template.yaml", "", "  PlantsApi:\n", permission},
		edit{"pipeline/roles.yaml", "  CloudFormationExecutionRole:", "        Statement:\n",
			"        Statement:\n          - Effect: Allow\n            Principal: {AWS: 'arn:aws:iam::999999999999:root'}\n            Action: sts:AssumeRole\n"})
	findings, err := Check(context.Background(), root)
	if err != nil {
		t.Fatal(err)
	}
	lineOf := func(file, text string) int {
		raw, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			t.Fatal(err)
		}
		before, _, _ := strings.Cut(string(raw), text)
		return strings.Count(before, "\n") + 1
	}
	for _, want := range []string{
		fmt.Sprintf("template.yaml:%d: PS-TPL-002: OpenPermission", lineOf("template.yaml", "  OpenPermission:")),
		fmt.Sprintf("pipeline/roles.yaml:%d: PS-IAM-003: CloudFormationExecutionRole (", lineOf("pipeline/roles.yaml", "  CloudFormationExecutionRole:")),
	} {
		if !slices.ContainsFunc(findings, func(f Finding) bool { return strings.HasPrefix(f.String(), want) }) {
			t.Errorf("no finding %q; findings: %v", want, findings)
		}
	}
	// Accepted in place, with a reason, the permission is no finding.
	path := filepath.Join(root, "template.yaml")
	raw, _ := os.ReadFile(path)
	accepted := strings.Replace(string(raw), "  OpenPermission:\n", "  # preflight: ignore[PS-TPL-002] a test of the acceptance\n  OpenPermission:\n", 1)
	if err := os.WriteFile(path, []byte(accepted), 0o644); err != nil {
		t.Fatal(err)
	}
	if findings, err = Check(context.Background(), root); err != nil {
		t.Fatal(err)
	}
	for _, f := range findings {
		if f.ID == "PS-TPL-002" || f.ID == "PS-BOOK-001" {
			t.Errorf("the accepted permission still gives %s", f)
		}
	}
}

// checkedMutant is a copy of what Check reads, with the edits made.
func checkedMutant(t *testing.T, edits ...edit) string {
	t.Helper()
	root := copyCheckedFiles(t)
	applyEdits(t, root, edits...)
	return root
}

// The stack rules of the book refuse each edit by their ID, on the line of
// template.yaml the edit touches (the resource's).
func TestStackRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	needEvaluator(t)
	skipMutantsInShort(t)
	const authorizerSecret = "          AUTH_HS256_SECRET: ''\n"
	const anonymousRoute = "            Path: /plants\n            Method: post\n"
	listPlants := edit{"template.yaml", "  CreatePlantFunction:", anonymousRoute, anonymousRoute +
		"        ListPlants:\n          Type: Api\n          Properties:\n            RestApiId: !Ref PlantsApi\n            Path: /plants\n            Method: get\n" +
		"            Auth:\n              Authorizer: NONE\n"}
	cases := []struct {
		name   string
		edits  []edit
		want   [][2]string // "ID where", says
		absent []string    // IDs no finding may have: a safe edit
	}{
		{"an anonymous second route GET /plants", []edit{listPlants},
			[][2]string{{"PS-TPL-003 PlantsApi GET /plants", `has no authorizer (security [{"NONE":[]}]): anyone reaches CreatePlantFunction`}}, nil},
		// Allowed with a reason, the route passes, and so does the
		// permission SAM makes for it (GET /plants is declared).
		{"safe: GET /plants allowed with a reason", []edit{listPlants,
			{AllowlistFile, "", "\nentries:\n", "\nentries:\n  - kind: public-route\n    what: GET /plants\n    reason: the catalogue is public\n"}},
			nil, []string{"PS-TPL-002", "PS-TPL-003", "PS-BOOK-002"}},
		{"an API Gateway method without an authorizer", []edit{{"template.yaml", "", "  PlantsApi:\n", "  RootMethod:\n    Type: AWS::ApiGateway::Method\n    Properties:\n" +
			"      RestApiId: !Ref PlantsApi\n      ResourceId: !GetAtt PlantsApi.RootResourceId\n      HttpMethod: GET\n" +
			"      AuthorizationType: NONE\n      Integration:\n        Type: MOCK\n\n  PlantsApi:\n"}},
			[][2]string{{"PS-TPL-003 PlantsApi GET /", "has no authorizer (AuthorizationType NONE)"}}, nil},
		{"the fixtures' HS256 secret for every function (Globals) and on the authorizer", []edit{
			{"template.yaml", "Globals:", "    MemorySize: 128\n", "    MemorySize: 128\n    Environment:\n      Variables:\n        AUTH_HS256_SECRET: " + fixtures.Secret + "\n"},
			{"template.yaml", "  AuthorizerFunction:", authorizerSecret, "          AUTH_HS256_SECRET: " + fixtures.Secret + "\n"}},
			[][2]string{{"PS-TPL-001 CreatePlantFunction", "AUTH_HS256_SECRET is a literal of"}, {"PS-TPL-001 PreTrafficFunction", "AUTH_HS256_SECRET is a literal of"},
				{"PS-TPL-001 AuthorizerFunction", "AUTH_HS256_SECRET is a literal of"}}, nil},
		{"the authorizer's HS256 secret from a NoEcho parameter", []edit{
			{"template.yaml", "", "Parameters:\n", "Parameters:\n  AuthHs256Secret:\n    Type: String\n    NoEcho: true\n    Default: ''\n"},
			{"template.yaml", "  AuthorizerFunction:", authorizerSecret, "          AUTH_HS256_SECRET: !Ref AuthHs256Secret\n"}},
			[][2]string{{"PS-TPL-001 AuthorizerFunction", `AUTH_HS256_SECRET is {"Ref":"AuthHs256Secret"}`}}, nil},
		// "Ship the authorizer's log to the security team's SIEM account."
		{"the authorizer's log to another account's SIEM", []edit{
			{"template.yaml", "", "  # The authorizer's role: its own log group", "  AuthorizerLogsToSiem:\n    Type: AWS::Logs::SubscriptionFilter\n    Properties:\n" +
				"      LogGroupName: !Ref AuthorizerLogGroup\n      FilterPattern: ''\n      DestinationArn: arn:aws:logs:eu-west-1:210987654321:destination:plantstore-siem\n\n" +
				"  # The authorizer's role: its own log group"}},
			[][2]string{{"PS-EXP-002 AuthorizerLogsToSiem", "sends log events to account 210987654321"}}, nil},
		// "Cut retention to 1 day in dev to save cost."
		{"dev's logs kept a day", []edit{{"samconfig.toml", "", "LogRetentionDays=7 ", "LogRetentionDays=1 "}},
			[][2]string{
				{"PS-EXP-005 ApiAccessLogGroup", "kept 1 day (LogRetentionDays=1 in dev's parameters), below the floor of 7 days"},
				{"PS-EXP-005 AuthorizerLogGroup", "kept 1 day (LogRetentionDays=1 in dev's parameters)"},
				{"PS-EXP-005 CreatePlantLogGroup", "kept 1 day (LogRetentionDays=1 in dev's parameters)"},
				{"PS-EXP-005 PreTrafficLogGroup", "kept 1 day (LogRetentionDays=1 in dev's parameters)"}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := checkedMutant(t, c.edits...)
			findings, err := Check(context.Background(), root)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range findings {
				if slices.Contains(c.absent, f.ID) {
					t.Errorf("a safe edit is refused: %s", f)
				}
			}
			for _, w := range c.want {
				wantFinding(t, findings, w[0], w[1])
				if id, where, _ := strings.Cut(w[0], " "); !slices.ContainsFunc(findings, func(f Finding) bool {
					return f.ID == id && strings.Contains(f.Rule, where) && f.File == "template.yaml" && f.Line > 0
				}) {
					t.Errorf("no %s finding on %s with its line in template.yaml", id, where)
				}
			}
		})
	}
}
