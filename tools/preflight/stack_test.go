package preflight

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/plantstore/plantstore/tools/samtemplate"
)

const (
	account   = "123456789012"
	region    = "eu-west-1"
	partition = "aws"
	owner     = "plantstore"
	repo      = "plant-store"
)

// env is one of samconfig.toml's environments made concrete: the stack that
// template.yaml becomes with that environment's parameters, and, for dev and
// prod, the pipeline stack of pipeline/roles.yaml for it.
type env struct {
	name     string
	app      *Resolved
	pipeline *Resolved // nil for [default], which no pipeline deploys
}

var translated = sync.OnceValues(func() (map[string]any, error) {
	return samtemplate.Translate(filepath.Join(repoRoot, "template.yaml"))
})

func loadEnv(t *testing.T, name string) env {
	t.Helper()
	doc, err := translated()
	if err != nil {
		t.Fatal(err)
	}
	stackName, params := samconfig(t, name)
	app, err := Resolve(doc, Stack{Name: stackName, Region: region, Account: account, Partition: partition, Params: params})
	if err != nil {
		t.Fatalf("template.yaml as %s: %v", stackName, err)
	}
	e := env{name: name, app: app}
	if name == "default" {
		return e
	}
	roles, err := samtemplate.Load(filepath.Join(repoRoot, "pipeline", "roles.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	e.pipeline, err = Resolve(roles.Doc, Stack{Name: "plant-store-pipeline-" + name, Region: region, Account: account, Partition: partition,
		Params: map[string]string{"GitHubOwner": owner, "GitHubRepo": repo, "Environment": name}})
	if err != nil {
		t.Fatalf("pipeline/roles.yaml for %s: %v", name, err)
	}
	return e
}

// samconfig reads an environment's stack name and parameter overrides from
// samconfig.toml, as SAM CLI would for --config-env (the environment's own
// table first, then [default]'s for the stack name).
func samconfig(t *testing.T, name string) (string, map[string]string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "samconfig.toml"))
	if err != nil {
		t.Fatal(err)
	}
	section := func(table string) string {
		_, after, ok := strings.Cut(string(raw), "["+table+"]\n")
		if !ok {
			return ""
		}
		before, _, _ := strings.Cut(after, "\n[")
		return before
	}
	value := func(table, key string) string {
		m := regexp.MustCompile(`(?m)^` + key + `\s*=\s*(".*")\s*$`).FindStringSubmatch(section(table))
		if m == nil {
			return ""
		}
		v, err := strconv.Unquote(m[1])
		if err != nil {
			t.Fatalf("samconfig.toml [%s] %s: %v", table, key, err)
		}
		return v
	}
	stack := value(name+".global.parameters", "stack_name")
	if stack == "" {
		t.Fatalf("samconfig.toml has no stack_name for %s", name)
	}
	params := map[string]string{}
	for _, kv := range strings.Fields(value(name+".deploy.parameters", "parameter_overrides")) {
		k, v, _ := strings.Cut(kv, "=")
		params[k] = v
	}
	return stack, params
}

// role is an IAM role as the evaluator sees it: its ARN, the documents of
// its inline and managed policies, its permissions boundary and trust policy.
type role struct {
	id         string
	arn        string
	identity   []any
	boundaries []any
	trust      any
}

// role gathers a role of r. Managed policies are AWS's (testdata/managed)
// or the environment's own (its pipeline stack's boundary).
func (e env) role(t *testing.T, r *Resolved, id string) role {
	t.Helper()
	p, err := r.Properties(id)
	if err != nil {
		t.Fatal(err)
	}
	arn, err := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
	if err != nil {
		t.Fatal(err)
	}
	ro := role{id: id, arn: fmt.Sprint(arn), trust: p["AssumeRolePolicyDocument"]}
	for _, pol := range asList(p["Policies"]) {
		ro.identity = append(ro.identity, pol.(map[string]any)["PolicyDocument"])
	}
	for _, m := range asList(p["ManagedPolicyArns"]) {
		ro.identity = append(ro.identity, e.managed(t, fmt.Sprint(m)))
	}
	if b, ok := p["PermissionsBoundary"]; ok {
		ro.boundaries = []any{e.managed(t, fmt.Sprint(b))}
	}
	return ro
}

func (e env) managed(t *testing.T, arn string) any {
	t.Helper()
	if name, ok := strings.CutPrefix(arn, "arn:"+partition+":iam::aws:policy/"); ok {
		raw, err := os.ReadFile(filepath.Join("testdata", "managed", filepath.Base(name)+".json"))
		if err != nil {
			t.Fatalf("managed policy %s: no document in testdata/managed: %v", arn, err)
		}
		var doc any
		if err := json.Unmarshal(raw, &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	for _, r := range []*Resolved{e.app, e.pipeline} {
		if r == nil {
			continue
		}
		for _, id := range r.ResourcesOfType("AWS::IAM::ManagedPolicy") {
			if ref, _ := r.Value(map[string]any{"Ref": id}); ref == arn {
				p, err := r.Properties(id)
				if err != nil {
					t.Fatal(err)
				}
				return p["PolicyDocument"]
			}
		}
	}
	t.Fatalf("policy %s exists in no template of environment %s (a boundary the pipeline stack does not create)", arn, e.name)
	return nil
}

// roleOf finds the role whose ARN an attribute names.
func (e env) roleOf(t *testing.T, r *Resolved, arn any) role {
	t.Helper()
	for _, id := range r.ResourcesOfType("AWS::IAM::Role") {
		if a, _ := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}}); a == arn {
			return e.role(t, r, id)
		}
	}
	t.Fatalf("no role of the template has the ARN %v", arn)
	return role{}
}

// ask is a question for the role.
func (ro role) ask(action, resource string, ctx map[string]any) Question {
	return Question{ID: ro.id + " " + action + " " + resource, Principal: ro.arn, Action: action, Resource: resource,
		Account: account, Context: ctx, IdentityPolicies: ro.identity, Boundaries: ro.boundaries}
}

// expect asks the evaluator and wants each question allowed or denied.
func expect(t *testing.T, allowed bool, why string, qs ...Question) {
	t.Helper()
	if os.Getenv("CI") != "true" {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed (make test installs the IAM evaluator and runs this)")
		}
	}
	answers, err := Ask(qs)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range answers {
		q := qs[i]
		switch {
		case a.Result == "Error":
			t.Errorf("%s: the evaluator refused the question %s: %s", why, q.Describe(), a.Error)
		case len(a.IgnoredContextKeys) > 0:
			t.Errorf("%s: %s: IAM sees no %v for this action and resource (AWS's service reference), so a condition on it never holds", why, q.Describe(), a.IgnoredContextKeys)
		case a.Allowed() != allowed:
			t.Errorf("%s: %s as %s is %s", why, q.Describe(), q.Principal, a.Result)
		}
	}
}

func asList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case nil:
		return nil
	}
	return []any{v}
}

// sdkCalls lists the AWS operations a function's code calls, as IAM actions:
// every `&<service>.<Operation>Input{` of aws-sdk-go-v2 in the non-test Go
// files of the packages the function links from this module.
func sdkCalls(t *testing.T, pkg string) []string {
	t.Helper()
	cmd := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.Dir}}{{end}}", pkg)
	cmd.Dir = repoRoot
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	root, _ := filepath.Abs(repoRoot)
	iamName := map[string]string{"lambda:Invoke": "lambda:InvokeFunction"}
	var calls []string
	for _, dir := range strings.Fields(string(out)) {
		if !strings.HasPrefix(dir, root+string(filepath.Separator)) {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			services := map[string]string{}
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				svc, ok := strings.CutPrefix(path, "github.com/aws/aws-sdk-go-v2/service/")
				if !ok || strings.Contains(svc, "/") {
					continue
				}
				name := svc
				if imp.Name != nil {
					name = imp.Name.Name
				}
				services[name] = svc
			}
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				sel, ok := lit.Type.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, _ := sel.X.(*ast.Ident)
				op, isInput := strings.CutSuffix(sel.Sel.Name, "Input")
				if x == nil || !isInput || services[x.Name] == "" {
					return true
				}
				action := iamPrefix(services[x.Name]) + ":" + op
				if n, ok := iamName[action]; ok {
					action = n
				}
				if !slices.Contains(calls, action) {
					calls = append(calls, action)
				}
				return true
			})
		}
	}
	slices.Sort(calls)
	return calls
}

// iamPrefix is IAM's name of an aws-sdk-go-v2 service package, where the
// two differ.
func iamPrefix(pkg string) string {
	if p, ok := map[string]string{"cognitoidentityprovider": "cognito-idp"}[pkg]; ok {
		return p
	}
	return pkg
}

// buildPackages maps each function to the package its Makefile target
// builds (build-<Function>: ... PKG=./functions/...).
func buildPackages(t *testing.T) map[string]string {
	t.Helper()
	mk, err := os.ReadFile(filepath.Join(repoRoot, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^build-(\w+):.*\n\t.*PKG=(\S+)`).FindAllStringSubmatch(string(mk), -1) {
		out[m[1]] = m[2]
	}
	return out
}
