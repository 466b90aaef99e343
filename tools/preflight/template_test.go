package preflight

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

func committedAllowlist(t *testing.T) *Allowlist {
	t.Helper()
	a, err := LoadAllowlist(filepath.Join(repoRoot, AllowlistFile))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func allVariants(t *testing.T) []env {
	t.Helper()
	var envs []env
	for _, name := range stackVariants {
		envs = append(envs, loadEnv(t, name))
	}
	return envs
}

func parseAllowlist(t *testing.T, text string) *Allowlist {
	t.Helper()
	a, err := ParseAllowlist([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// stackFacts are the book's input for the variants' stacks alone, as Check
// makes it but without the evaluator's answers (input.access): the
// template and exposure rules read none.
func stackFacts(envs []env, allow *Allowlist, stateful map[string]any) map[string]any {
	places := map[string]map[string]int{}
	for _, file := range credentialTemplates {
		places[file] = logicalIDLines(filepath.Join(envs[0].root, file))
	}
	if stateful == nil {
		stateful = map[string]any{"environments": map[string]any{}}
	}
	return map[string]any{"stacks": stacksFacts(envs, places), "stateful": stateful, "allowlist": allowlistFacts(allow),
		"allowlist_entries": allowlistEntries(allow), "evidence_floor": evidenceFloor()}
}

// bookFindings are the findings of the book over facts, of the rules ids
// (every rule's when none).
func bookFindings(facts map[string]any, ids ...string) []Finding {
	b, err := LoadBook()
	if err == nil {
		var fs []Finding
		fs, err = b.Eval(context.Background(), facts)
		fs = slices.DeleteFunc(fs, func(f Finding) bool { return len(ids) > 0 && !slices.Contains(ids, f.ID) })
		if err == nil {
			return fs
		}
	}
	return []Finding{{ID: "error", Rule: err.Error()}}
}

// AllowlistFindings are PS-BOOK-002's findings over the variants' stacks,
// the allowlist and the reference (nil for none).
func AllowlistFindings(a *Allowlist, envs []env, stateful map[string]any) []Finding {
	return bookFindings(stackFacts(envs, a, stateful), "PS-BOOK-002")
}

// stackFindings are the book's findings over the stacks of a mutant (every
// variant), with the committed allowlist and reference.
func stackFindings(t *testing.T, root string) []Finding {
	t.Helper()
	stateful, err := statefulFacts(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	// The facts are the stacks' alone: only the rules of the stacks'
	// families judge them (a workflow rule would find no workflow).
	b, err := LoadBook()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range b.Rules {
		if strings.HasPrefix(r.File, "rules/template/") || strings.HasPrefix(r.File, "rules/exposure/") {
			ids = append(ids, r.ID)
		}
	}
	fs := bookFindings(stackFacts(loadMutant(t, root, stackVariants...), committedAllowlist(t), stateful), ids...)
	for _, f := range fs {
		if f.ID == "error" {
			t.Fatal(f.Rule)
		}
	}
	return fs
}

// bookQuery answers a query over input with the book's rules and helpers
// loaded, as a rule would ask it.
func bookQuery(t *testing.T, query string, input any) []rego.Result {
	t.Helper()
	c, err := bookCompiler()
	if err != nil {
		t.Fatal(err)
	}
	in, ok := input.(ast.Value)
	if !ok {
		if in, err = ast.InterfaceToValue(input); err != nil {
			t.Fatal(err)
		}
	}
	rs, err := rego.New(rego.Query(query), rego.Compiler(c), rego.ParsedInput(in)).Eval(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return rs
}

// bookCompiler is the book's rules and helpers compiled once for
// bookQuery: compiling them is most of one query's time.
var bookCompiler = sync.OnceValues(func() (*ast.Compiler, error) {
	b, err := LoadBook()
	if err != nil {
		return nil, err
	}
	mods := map[string]*ast.Module{}
	for p, m := range b.TestModules() {
		if !strings.HasSuffix(p, "_test.rego") {
			mods[p] = m
		}
	}
	c := ast.NewCompiler().WithDefaultRegoVersion(ast.RegoV1)
	if c.Compile(mods); c.Failed() {
		return nil, c.Errors
	}
	return c, nil
})

// The facts the template and exposure rules read are there in every
// variant of the repository, so that no finding is no accident: Lambda
// permissions, routes and authorizers, the table in the reference, a key
// source, alarms acting on the probe's topic, a traced stage with an
// access log format, and the functions that serve the plants.
func TestStackRulesReadTheStacks(t *testing.T) {
	t.Parallel()
	raw, err := Facts(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := ast.InterfaceToValue(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ what, query string }{
		{"two Lambda permissions", `count([id | some id, r in s.resources; r.type == "AWS::Lambda::Permission"]) >= 2`},
		{"routes and an authorizer", `some api in s.apis; count(api.routes) > 0; count(api.authorizers) > 0`},
		{"one key source", `count([id | some id, r in s.resources; r.properties.Environment.Variables.AUTH_JWKS_URL]) == 1`},
		{"ten alarms acting on the probe's topic", `s.probe; count([id | some id, r in s.resources; s.params.AlarmTopicArn in r.properties.AlarmActions]) >= 10`},
		{"a traced stage with an access log format", `s.probe; count([st | some st in data.preflight.lib.gateway.stages(s); st.format != ""; st.tracing == true]) == 1`},
		{"the authorizer and createplant serve the plants", `data.preflight.rules.tracing.serving(s) == {"AuthorizerFunction", "CreatePlantFunction"}`},
	} {
		for _, v := range stackVariants {
			q := fmt.Sprintf(`some s in input.stacks; s.variant == %q; s.file == "template.yaml"; %s`, v, c.query)
			if len(bookQuery(t, q, facts)) == 0 {
				t.Errorf("%s: the stacks do not hold %s (%s)", v, c.what, c.query)
			}
		}
	}
	for _, v := range statefulEnvironments {
		if len(bookQuery(t, fmt.Sprintf(`data.preflight.rules.stateful_replaced.snapshot[%q].PlantsTable`, v), facts)) == 0 {
			t.Errorf("%s: the stateful snapshot has no PlantsTable", v)
		}
	}
}

// statefulEnvironments are the variants StatefulFile holds: samconfig.toml's
// environments, the deployed stacks.
var statefulEnvironments = []string{"default", "dev", "prod"}

// StatefulFile is what regeneration writes for the template as it stands
// (PS-TPL-004's snapshot). UPDATE_PREFLIGHT=1 writes it instead, taking a
// replacement or a removal only when the allowlist acknowledges it.
func TestStatefulReference(t *testing.T) {
	t.Parallel()
	facts, err := Facts(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repoRoot, StatefulFile)
	next, err := regenerateStateful(t, facts, committedAllowlist(t))
	if err != nil {
		t.Fatal(err)
	}
	if os.Getenv("UPDATE_PREFLIGHT") == "1" {
		if err := os.WriteFile(path, next, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", StatefulFile)
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate it with %s)", err, regenerate)
	}
	if !bytes.Equal(raw, next) {
		t.Errorf("%s is not what regeneration writes for template.yaml as it stands (PS-TPL-004 names the differences; an edit by hand is one too): "+
			"regenerate it with %s", StatefulFile, regenerate)
	}
}

const statefulAbout = "Written by " + regenerate + " (PS-TPL-004, tools/preflight/rules/template/stateful_replaced.rego): per samconfig.toml environment, " +
	"each stateful resource's type and the values, as resolved, of the properties it cannot change in place. " +
	"PS-TPL-004 refuses a difference; regeneration takes a replacement or a removal only when " + AllowlistFile + " acknowledges it."

// regenerateStateful is StatefulFile for the stacks of facts, or an error
// naming each replacement or removal of the reference that the allowlist
// does not acknowledge (kind replacement, what its logical id, a reason).
// New resources need no acknowledgement.
func regenerateStateful(t *testing.T, facts map[string]any, allow *Allowlist) ([]byte, error) {
	t.Helper()
	rs := bookQuery(t, `s := data.preflight.rules.stateful_replaced.snapshot; r := data.preflight.rules.stateful_replaced.replaced`, facts)
	if len(rs) != 1 {
		t.Fatal("PS-TPL-004 gives no snapshot")
	}
	var refused []string
	for _, r := range rs[0].Bindings["r"].([]any) {
		id := r.([]any)[1].(string)
		if !allow.allows("replacement", id) {
			refused = append(refused, fmt.Sprintf("%s [%s]", id, r.([]any)[0]))
		}
	}
	if len(refused) > 0 {
		return nil, fmt.Errorf("%s is not written: the replacement or removal of %s, which %s does not acknowledge (kind replacement, what its logical id, a reason)",
			StatefulFile, strings.Join(refused, ", "), AllowlistFile)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(struct {
		About        string `json:"about"`
		Environments any    `json:"environments"`
	}{statefulAbout, rs[0].Bindings["s"]})
	return b.Bytes(), err
}

// The allowlist's own mistakes and a reference without an environment, on
// the repository's stacks (no translation), are refused by their rule's ID;
// an entry with an unknown field is not read at all.
func TestAllowlistAndReferenceMistakes(t *testing.T) {
	t.Parallel()
	facts, err := Facts(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	with := func(key string, v any) map[string]any {
		out := maps.Clone(facts)
		out[key] = v
		return out
	}
	for _, c := range []struct{ name, allowlist, where, says string }{
		{"an entry without a reason", "entries:\n  - kind: replacement\n    what: PlantsTable\n", "entry 1", "has no reason"},
		{"a blank reason", "entries:\n  - kind: public-route\n    what: GET /plants\n    reason: '  '\n", "entry 1", "has no reason"},
		{"a stale public route", "entries:\n  - kind: public-route\n    what: GET /nowhere\n    reason: a load balancer's check\n", "GET /nowhere", "no variant of the template has this route"},
		{"an entry for a guarded route", "entries:\n  - kind: public-route\n    what: POST /plants\n    reason: for a demo\n", "POST /plants", "the route has the authorizer in every variant"},
		{"a stale replacement", "entries:\n  - kind: replacement\n    what: OldTable\n    reason: moved\n", "OldTable", "no stateful resource"},
		{"an unknown kind", "entries:\n  - kind: public\n    what: GET /plants\n    reason: x\n", "entry 1", `has kind "public"`},
		{"a repeated entry", "entries:\n  - kind: replacement\n    what: PlantsTable\n    reason: x\n  - kind: replacement\n    what: PlantsTable\n    reason: y\n", "entry 2", "repeats an earlier entry"},
	} {
		t.Run("allowlist: "+c.name, func(t *testing.T) {
			fs := bookFindings(with("allowlist_entries", allowlistEntries(parseAllowlist(t, c.allowlist))), "PS-BOOK-002")
			wantFinding(t, fs, "PS-BOOK-002 "+c.where, c.says)
			for _, f := range fs {
				if f.File != AllowlistFile || f.Line == 0 {
					t.Errorf("not on its entry's line of %s: %s", AllowlistFile, f)
				}
			}
		})
	}
	t.Run("a reference without the environment", func(t *testing.T) {
		fs := bookFindings(with("stateful", map[string]any{"environments": map[string]any{}}), "PS-TPL-004")
		wantFinding(t, fs, "PS-TPL-004 "+StatefulFile, "holds no reference for the prod stack")
	})
	if _, err := ParseAllowlist([]byte("entries:\n  - kind: replacement\n    what: PlantsTable\n    reson: typo\n")); err == nil {
		t.Error("an allowlist entry with an unknown field (reson) was read")
	}
}

// Each dangerous edit of template.yaml is refused by its rule's ID, naming
// the resource, on the resource's line of template.yaml. Each mutant is a
// copy of the repository's files, translated by the SAM translator (in
// parallel: about a second of Python each) and resolved for every variant;
// edits of different resources share a mutant, each told apart by its own
// finding.
func TestTemplateRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	skipMutantsInShort(t)
	permission := func(name, principal, source string) edit {
		return edit{"template.yaml", "", "  PlantsApi:\n", "  " + name + ":\n    Type: AWS::Lambda::Permission\n    Properties:\n" +
			"      Action: lambda:InvokeFunction\n      FunctionName: !Ref CreatePlantFunction.Alias\n" +
			"      Principal: " + principal + "\n      SourceArn: " + source + "\n\n  PlantsApi:\n"}
	}
	keySchema := []edit{
		{"template.yaml", "  PlantsTable:", "        - AttributeName: id\n          AttributeType: N\n", "        - AttributeName: plantId\n          AttributeType: N\n"},
		{"template.yaml", "  PlantsTable:", "        - AttributeName: id\n          KeyType: HASH\n", "        - AttributeName: plantId\n          KeyType: HASH\n"},
	}
	type want struct{ where, says string }
	cases := []struct {
		name  string
		edits []edit
		whole func(string) string
		want  []want
		then  func(t *testing.T, root string)
	}{
		{name: "permissions for any API, for principal *, for another service, for an undeclared route",
			edits: []edit{
				permission("CreatePlantAnyApiPermission", "apigateway.amazonaws.com", "!Sub arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:*"),
				permission("CreatePlantPublicPermission", "'*'", "!Sub arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${PlantsApi}/*/POST/plants"),
				permission("CreatePlantS3Permission", "s3.amazonaws.com", "arn:aws:s3:::plant-uploads"),
				permission("CreatePlantDeletePermission", "apigateway.amazonaws.com", "!Sub arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:${PlantsApi}/*/DELETE/plants")},
			want: []want{
				{"PS-TPL-002 CreatePlantAnyApiPermission", `"*" is no RestApi of this stack`},
				{"PS-TPL-002 CreatePlantPublicPermission", "lets * invoke CreatePlantFunction"},
				{"PS-TPL-002 CreatePlantS3Permission", "lets s3.amazonaws.com invoke CreatePlantFunction"},
				{"PS-TPL-002 CreatePlantDeletePermission", "names no stage and route the template declares"}}},
		{name: "the table's key attribute renamed", edits: keySchema,
			want: []want{{"PS-TPL-004 PlantsTable", `KeySchema changes ([{"AttributeName":"id","KeyType":"HASH"}] to [{"AttributeName":"plantId","KeyType":"HASH"}]); CloudFormation replaces the table`}},
			then: func(t *testing.T, root string) {
				stateful, err := statefulFacts(repoRoot)
				if err != nil {
					t.Fatal(err)
				}
				facts := stackFacts(loadMutant(t, root, stackVariants...), committedAllowlist(t), stateful)
				// Regeneration refuses the replacement without an
				// acknowledgement, and without a reason, and takes it with one.
				for _, allow := range []string{"entries: []\n", "entries:\n  - kind: replacement\n    what: PlantsTable\n"} {
					if _, err := regenerateStateful(t, facts, parseAllowlist(t, allow)); err == nil || !strings.Contains(err.Error(), "PlantsTable [prod]") {
						t.Errorf("regeneration took the table's replacement with the allowlist %q: %v", allow, err)
					}
				}
				ack := parseAllowlist(t, "entries:\n  - kind: replacement\n    what: PlantsTable\n    reason: the key becomes plantId; the plants are copied by scripts/migrate\n")
				next, err := regenerateStateful(t, facts, ack)
				if err != nil {
					t.Fatalf("regeneration refused an acknowledged replacement: %v", err)
				}
				if !strings.Contains(string(next), `"AttributeName": "plantId"`) {
					t.Errorf("the regenerated reference holds no plantId: %s", next)
				}
			}},
		{name: "the table named (TableName is create-only)",
			edits: []edit{{"template.yaml", "  PlantsTable:", "      BillingMode: PAY_PER_REQUEST\n", "      BillingMode: PAY_PER_REQUEST\n      TableName: !Sub ${AWS::StackName}-plants\n"}},
			want:  []want{{"PS-TPL-004 PlantsTable", `TableName changes (null to "plant-store-prod-plants"); CloudFormation replaces the table`}}},
		{name: "the table's logical id renamed",
			whole: func(s string) string {
				return regexp.MustCompile(`\bPlantsTable\b`).ReplaceAllString(s, "PlantStoreTable")
			},
			want: []want{{"PS-TPL-004 PlantsTable", "the AWS::DynamoDB::Table is gone from the stack (renamed to PlantStoreTable?)"}}},
		{name: "the user pool signs in by email (UsernameAttributes is fixed)",
			edits: []edit{{"template.yaml", "  UserPool:", "      AdminCreateUserConfig:\n", "      UsernameAttributes: [email]\n      AdminCreateUserConfig:\n"}},
			want:  []want{{"PS-TPL-004 UserPool", `UsernameAttributes changes (null to ["email"]); Amazon Cognito cannot change it on an existing pool`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := mutant(t, c.edits...)
			if c.whole != nil {
				path := filepath.Join(root, "template.yaml")
				raw, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(c.whole(string(raw))), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			findings := stackFindings(t, root)
			for _, w := range c.want {
				wantFinding(t, findings, w.where, w.says)
			}
			if c.then != nil {
				c.then(t, root)
			}
		})
	}
}

// allows says whether an entry with a reason allows what. An entry without
// one allows nothing.
func (a *Allowlist) allows(kind, what string) bool {
	if a == nil {
		return false
	}
	for _, e := range a.Entries {
		if e.Kind == kind && e.What == what && strings.TrimSpace(e.Reason) != "" {
			return true
		}
	}
	return false
}
