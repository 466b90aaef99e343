package preflight

import (
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
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

var translated = func() (map[string]any, error) { return translate(filepath.Join(repoRoot, "template.yaml")) }

func loadEnv(t *testing.T, name string) env {
	t.Helper()
	e, err := loadVariant(repoRoot, name)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deployConfig reads an environment's stack name and parameter overrides from
// samconfig.toml, as SAM CLI would for --config-env.
func deployConfig(t *testing.T, name string) (string, map[string]string) {
	t.Helper()
	stack, params, err := readSamconfig(repoRoot, name)
	if err != nil {
		t.Fatal(err)
	}
	return stack, params
}

func (e env) role(t *testing.T, r *samtemplate.Resolved, id string) role {
	t.Helper()
	ro, err := e.roleOf(r, id)
	if err != nil {
		t.Fatal(err)
	}
	return ro
}

func (e env) managed(t *testing.T, arn string) any {
	t.Helper()
	doc, err := e.managedPolicy(arn)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// ask is a question for the role.
func (ro role) ask(action, resource string, ctx map[string]any) iameval.Question {
	return iameval.Question{ID: ro.id + " " + action + " " + resource, Principal: ro.arn, Action: action, Resource: resource,
		Account: account, Context: ctx, IdentityPolicies: ro.identity, Boundaries: ro.boundaries}
}

// expect asks the evaluator and wants each question allowed or denied.
func expect(t *testing.T, allowed bool, why string, qs ...iameval.Question) {
	t.Helper()
	needEvaluator(t)
	answers, err := iameval.Ask(qs)
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
			// One line: the role, the rule, and the change that fixes it.
			who, _, _ := strings.Cut(q.ID, " ")
			if who == "" || who == q.Action {
				who = q.Principal
			}
			if allowed {
				t.Errorf("%s: %s must be able to call %s, and the evaluator says %s; fix: allow it in %s's policies (and its boundary, where it has one), on that resource", why, who, q.Describe(), a.Result, who)
			} else {
				t.Errorf("%s: %s must not call %s, and the evaluator says %s; fix: narrow the statement of %s that allows it (its Resource or Condition)", why, who, q.Describe(), a.Result, who)
			}
		}
	}
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

// roleWith finds the role whose ARN an attribute names.
func (e env) roleWith(t *testing.T, r *samtemplate.Resolved, arn any) role {
	t.Helper()
	ro, err := e.roleWithArn(r, arn)
	if err != nil {
		t.Fatal(err)
	}
	return ro
}

// needEvaluator skips a test that asks the IAM evaluator where node is
// missing, except under CI=true (make test), where it must run.
func needEvaluator(t *testing.T) {
	t.Helper()
	if os.Getenv("CI") != "true" {
		if _, err := exec.LookPath("node"); err != nil {
			t.Skip("node is not installed (make test installs the IAM evaluator and runs this)")
		}
	}
}

// roleWithArn finds the role of r whose ARN an attribute names.
func (e env) roleWithArn(r *samtemplate.Resolved, arn any) (role, error) {
	for _, id := range r.ResourcesOfType("AWS::IAM::Role") {
		if a, _ := r.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}}); a == arn {
			return e.roleOf(r, id)
		}
	}
	return role{}, fmt.Errorf("no role of the template has the ARN %v", arn)
}
