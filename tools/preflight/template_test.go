package preflight

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// hs256Variable is the authorizer's HS256 key source (internal/auth),
// which PS-TPL-001 keeps empty in template.yaml.
const hs256Variable = "AUTH_HS256_SECRET"

// valuesOfKey collects the values of every map entry named key in v, at
// any depth (an Fn::If may hold two environments).
func valuesOfKey(v any, key string) []any {
	var out []any
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == key {
				out = append(out, e)
			} else {
				out = append(out, valuesOfKey(e, key)...)
			}
		}
	case []any:
		for _, e := range x {
			out = append(out, valuesOfKey(e, key)...)
		}
	}
	return out
}

func committedAllowlist(t *testing.T) *Allowlist {
	t.Helper()
	a, err := LoadAllowlist(filepath.Join(repoRoot, AllowlistFile))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func committedReference(t *testing.T) *StatefulReference {
	t.Helper()
	ref, err := LoadStatefulReference(filepath.Join(repoRoot, StatefulFile))
	if err != nil {
		t.Fatalf("%v (regenerate it with %s)", err, regenerate)
	}
	return ref
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

// Every variant of template.yaml (samconfig.toml's environments and make
// lint's edge parameters) keeps the template rules, and the rules read what
// they check: permissions, routes, the authorizer's declared secret, the
// table; so that no finding is no accident.
func TestTemplateRules(t *testing.T) {
	t.Parallel()
	envs := allVariants(t)
	for _, f := range CheckTemplate(envs, committedAllowlist(t), committedReference(t)) {
		t.Error(f)
	}
	for _, e := range envs {
		if n := len(e.app.ResourcesOfType("AWS::Lambda::Permission")); n < 2 {
			t.Errorf("%s: %d Lambda permissions, want the route's and the authorizer's", e.name, n)
		}
		apis, _ := restAPIsOf(e.app)
		routes := 0
		for _, api := range apis {
			routes += len(api.routes)
			if len(api.authorizers) == 0 {
				t.Errorf("%s: %s has no Lambda authorizer the rules can see", e.name, api.id)
			}
		}
		if routes == 0 {
			t.Errorf("%s: the rules read no route", e.name)
		}
		if len(valuesOfKey(rawProperties(e.app, "AuthorizerFunction")["Environment"], hs256Variable)) != 1 {
			t.Errorf("%s: AuthorizerFunction does not declare %s: the rule that keeps it empty reads nothing", e.name, hs256Variable)
		}
		snap, err := StatefulSnapshot(e.app)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := snap["PlantsTable"]; !ok {
			t.Errorf("%s: the stateful snapshot has no PlantsTable", e.name)
		}
	}
}

// StatefulFile is what regeneration writes for the template as it stands.
// UPDATE_PREFLIGHT=1 writes it instead, taking a replacement or a removal
// only when the allowlist acknowledges it.
func TestStatefulReference(t *testing.T) {
	t.Parallel()
	current := map[string]map[string]StatefulResource{}
	for _, name := range statefulEnvironments {
		snap, err := StatefulSnapshot(loadEnv(t, name).app)
		if err != nil {
			t.Fatal(err)
		}
		current[name] = snap
	}
	path := filepath.Join(repoRoot, StatefulFile)
	if os.Getenv("UPDATE_PREFLIGHT") == "1" {
		old, err := LoadStatefulReference(path)
		if errors.Is(err, fs.ErrNotExist) {
			old = nil
		} else if err != nil {
			t.Fatal(err)
		}
		next, findings := RegenerateStateful(old, current, committedAllowlist(t))
		for _, f := range findings {
			t.Error(f)
		}
		if len(findings) > 0 {
			t.Fatalf("%s is not written: a replacement the allowlist does not acknowledge", StatefulFile)
		}
		raw, err := next.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", StatefulFile)
		return
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (regenerate it with %s)", err, regenerate)
	}
	want, err := (&StatefulReference{About: statefulAbout, Environments: current}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(raw, want) {
		t.Errorf("%s is not what regeneration writes for template.yaml as it stands (TestTemplateRules names the differences; an edit by hand is one too): "+
			"regenerate it with %s", StatefulFile, regenerate)
	}
}

// templateMutant is mutant with each edit checked to change something, and
// an optional edit of the whole of template.yaml (a rename); the copy must
// differ from template.yaml.
func templateMutant(t *testing.T, edits []edit, whole func(string) string) string {
	t.Helper()
	for _, e := range edits {
		if e.Old == e.New {
			t.Fatalf("the edit of %q changes nothing", e.Old)
		}
	}
	root := mutant(t, edits...)
	path := filepath.Join(root, "template.yaml")
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if whole != nil {
		edited := whole(string(raw))
		if edited == string(raw) {
			t.Fatal("the edit of the whole template changes nothing")
		}
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		raw = []byte(edited)
	}
	orig, err := os.ReadFile(filepath.Join(repoRoot, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(raw, orig) {
		t.Fatal("the mutant's template.yaml is template.yaml")
	}
	return root
}

// Each dangerous edit of template.yaml (or of the allowlist) is a finding
// that names the resource and the rule. Each mutant is a copy of the
// repository's files in a directory of its own, translated by the SAM
// translator (in parallel: about a second of Python each) and resolved for
// every variant, as the repository's template is.
func TestTemplateRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	allow, ref := committedAllowlist(t), committedReference(t)

	// The allowlist's own mistakes, on the repository's template (no
	// translation: these run under -short too).
	envs := allVariants(t)
	for _, c := range []struct{ name, allowlist, where, says string }{
		{"an entry without a reason", "entries:\n  - kind: replacement\n    what: PlantsTable\n", "entry 1", "has no reason"},
		{"a blank reason", "entries:\n  - kind: public-route\n    what: GET /plants\n    reason: '  '\n", "entry 1", "has no reason"},
		{"a stale public route", "entries:\n  - kind: public-route\n    what: GET /nowhere\n    reason: a load balancer's check\n", "GET /nowhere", "no variant of the template has this route"},
		{"an entry for a guarded route", "entries:\n  - kind: public-route\n    what: POST /plants\n    reason: for a demo\n", "POST /plants", "the route has the authorizer in every variant"},
		{"a stale replacement", "entries:\n  - kind: replacement\n    what: OldTable\n    reason: moved\n", "OldTable", "no stateful resource"},
		{"an unknown kind", "entries:\n  - kind: public\n    what: GET /plants\n    reason: x\n", "entry 1", `has kind "public"`},
	} {
		t.Run("allowlist: "+c.name, func(t *testing.T) {
			wantFinding(t, CheckTemplate(envs, parseAllowlist(t, c.allowlist), ref), "PS-BOOK-002 "+c.where, c.says)
		})
	}
	t.Run("a reference without the environment", func(t *testing.T) {
		wantFinding(t, CheckTemplate(envs, allow, &StatefulReference{}), "PS-TPL-004 "+StatefulFile, "holds no reference for the prod stack")
	})
	if _, err := ParseAllowlist([]byte("entries:\n  - kind: replacement\n    what: PlantsTable\n    reson: typo\n")); err == nil {
		t.Error("an allowlist entry with an unknown field (reson) was read")
	}
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
	// A finding names the resource it is about, so edits of different
	// resources share a mutant (one translation) and each is still told
	// apart by its own finding.
	type want struct{ where, says string }
	cases := []struct {
		name  string
		edits []edit
		whole func(string) string
		want  []want
		then  func(t *testing.T, envs []env)
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
			then: func(t *testing.T, envs []env) {
				current := map[string]map[string]StatefulResource{}
				for _, e := range envs {
					if snap, err := StatefulSnapshot(e.app); err == nil && e.name != "edge" {
						current[e.name] = snap
					}
				}
				// Regeneration refuses the replacement without an acknowledgement...
				if next, fs := RegenerateStateful(ref, current, allow); next != nil || len(fs) == 0 {
					t.Errorf("regeneration took the table's replacement unacknowledged")
				} else {
					wantFinding(t, fs, "PlantsTable", "KeySchema changes")
				}
				// ...and without a reason, and takes it with one.
				noReason := parseAllowlist(t, "entries:\n  - kind: replacement\n    what: PlantsTable\n")
				if next, _ := RegenerateStateful(ref, current, noReason); next != nil {
					t.Errorf("regeneration took the replacement on an entry without a reason")
				}
				ack := parseAllowlist(t, "entries:\n  - kind: replacement\n    what: PlantsTable\n    reason: the key becomes plantId; the plants are copied by scripts/migrate\n")
				next, fs := RegenerateStateful(ref, current, ack)
				if next == nil {
					t.Fatalf("regeneration refused an acknowledged replacement: %v", fs)
				}
				if got := oneLineJSON(next.Environments["prod"]["PlantsTable"].Properties["KeySchema"], 200); !strings.Contains(got, "plantId") {
					t.Errorf("the regenerated reference holds KeySchema %s", got)
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
			envs := loadMutant(t, templateMutant(t, c.edits, c.whole), stackVariants...)
			findings := CheckTemplate(envs, allow, ref)
			for _, w := range c.want {
				wantFinding(t, findings, w.where, w.says)
			}
			if c.then != nil {
				c.then(t, envs)
			}
		})
	}

}
