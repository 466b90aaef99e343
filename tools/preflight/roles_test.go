package preflight

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

var environments = []string{"default", "dev", "prod"}

// Each function's role, within its permissions boundary, allows what the
// function's configuration and code need, and allows nothing else:
//   - traces, when its tracing is Active: Lambda's CreateFunction and
//     UpdateFunctionConfiguration refuse TracingConfig Active when the
//     execution role may not call xray:PutTraceSegments and
//     xray:PutTelemetryRecords (InvalidParameterValueException; Lambda
//     developer guide, "Visualize Lambda function invocations using AWS
//     X-Ray": "your function's execution role needs permission");
//   - its own log group (LoggingConfig.LogGroup): CreateLogStream and
//     PutLogEvents on a stream of it;
//   - every AWS operation its code calls (sdkCalls), on the resource its
//     configuration names: the table of TABLE_NAME, the versions of
//     *_VERSION, the stack's deployment groups.
//
// CodeDeploy's role must move each alias and invoke the hook.
func TestRolesAllowWhatTheirFunctionsNeed(t *testing.T) {
	t.Parallel()
	pkgs := buildPackages(t)
	for _, name := range environments {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := loadEnv(t, name)
			app := e.app
			var needed, unneeded []iameval.Question
			for _, fn := range app.ResourcesOfType("AWS::Lambda::Function") {
				p, err := app.Properties(fn)
				if err != nil {
					t.Fatal(err)
				}
				ro := e.roleWith(t, app, p["Role"])
				var actions []string
				need := func(action, resource string) {
					needed = append(needed, ro.ask(action, resource, resourceContext(t, app, resource)))
					if !slices.Contains(actions, action) {
						actions = append(actions, action)
					}
				}
				if tc, _ := p["TracingConfig"].(map[string]any); tc["Mode"] == "Active" {
					need("xray:PutTraceSegments", "*")
					need("xray:PutTelemetryRecords", "*")
				}
				lg, _ := p["LoggingConfig"].(map[string]any)
				group := fmt.Sprint(lg["LogGroup"])
				if lg["LogGroup"] == nil {
					name, _ := app.Value(map[string]any{"Ref": fn}) // FunctionName, or the name CloudFormation makes
					group = "/aws/lambda/" + fmt.Sprint(name)
				}
				stream := fmt.Sprintf("arn:%s:logs:%s:%s:log-group:%s:log-stream:2026/11/24/[$LATEST]0123456789abcdef", partition, region, account, group)
				need("logs:CreateLogStream", stream)
				need("logs:PutLogEvents", stream)
				// A group no template declares is made by Lambda on the
				// function's first log line, with the function's role
				// (Lambda developer guide, "Sending Lambda function logs to
				// CloudWatch Logs": the role needs logs:CreateLogGroup).
				if !declaresLogGroup(app, group) {
					need("logs:CreateLogGroup", fmt.Sprintf("arn:%s:logs:%s:%s:log-group:%s", partition, region, account, group))
				}
				environment, _ := p["Environment"].(map[string]any) // none for a function that reads no variable
				vars, _ := environment["Variables"].(map[string]any)
				pkg := pkgs[fn]
				if pkg == "" {
					t.Fatalf("%s: the Makefile has no build-%s with a PKG", fn, fn)
				}
				for _, call := range sdkCalls(t, pkg) {
					resources := callResources(t, app, call, vars)
					if len(resources) == 0 {
						t.Errorf("%s's code calls %s, and the preflight cannot tell on which resource: teach callResources", fn, call)
					}
					for _, r := range resources {
						need(call, r)
					}
				}
				// Nothing else: every action the role allows is one it needs.
				for _, doc := range ro.identity {
					for _, st := range asList(doc.(map[string]any)["Statement"]) {
						s := st.(map[string]any)
						if s["Effect"] != "Allow" {
							continue
						}
						for _, a := range asList(s["Action"]) {
							if !slices.Contains(actions, fmt.Sprint(a)) {
								t.Errorf("%s's role %s allows %v, which %s's configuration and code do not need", fn, ro.id, a, fn)
							}
						}
					}
				}
				// And a neighbour's log group is out of reach, unless the
				// allowlist acknowledges the role's reach into logs (a role
				// SAM makes, without a boundary: docs/deploy.md, "Adding a
				// function").
				if committedAllowlist(t).allows(kindReach, name+" "+ro.id+" logs") {
					continue
				}
				unneeded = append(unneeded, ro.ask("logs:PutLogEvents", fmt.Sprintf("arn:%s:logs:%s:%s:log-group:/aws/lambda/another:log-stream:x", partition, region, account), nil))
			}
			for _, dg := range app.ResourcesOfType("AWS::CodeDeploy::DeploymentGroup") {
				p, err := app.Properties(dg)
				if err != nil {
					t.Fatal(err)
				}
				ro := e.roleWith(t, app, p["ServiceRoleArn"])
				fn := strings.TrimSuffix(dg, "DeploymentGroup")
				alias, _ := app.Value(map[string]any{"Ref": fn + "Aliaslive"})
				needed = append(needed, ro.ask("lambda:GetAlias", fmt.Sprint(alias), nil), ro.ask("lambda:UpdateAlias", fmt.Sprint(alias), nil),
					ro.ask("cloudwatch:DescribeAlarms", "*", nil))
				for _, hook := range app.ResourcesOfType("AWS::Lambda::Function") {
					if hp, _ := app.Properties(hook); strings.HasPrefix(fmt.Sprint(hp["FunctionName"]), "CodeDeployHook_") {
						arn, _ := app.Value(map[string]any{"Fn::GetAtt": []any{hook, "Arn"}})
						needed = append(needed, ro.ask("lambda:InvokeFunction", fmt.Sprint(arn), nil))
					}
				}
			}
			if len(needed) == 0 {
				t.Fatal("no function roles found")
			}
			expect(t, true, name+": a role must allow what its function needs", needed...)
			expect(t, false, name+": a role must not reach beyond its function", unneeded...)
		})
	}
}

// resourceContext is what IAM sees of a resource of the stack when a call
// reaches it: a user pool's tags.
func resourceContext(t *testing.T, app *samtemplate.Resolved, arn string) map[string]any {
	t.Helper()
	for _, pool := range app.ResourcesOfType("AWS::Cognito::UserPool") {
		if id, _ := app.Value(map[string]any{"Ref": pool}); strings.HasSuffix(arn, ":userpool/"+fmt.Sprint(id)) {
			return tagContext(t, app, pool)
		}
	}
	return nil
}

// callResources are the resources a function's call reaches, by its
// configuration.
func callResources(t *testing.T, app *samtemplate.Resolved, call string, vars map[string]any) []string {
	t.Helper()
	service, _, _ := strings.Cut(call, ":")
	switch service {
	case "dynamodb":
		if table, ok := vars["TABLE_NAME"]; ok {
			return []string{fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%v", partition, region, account, table)}
		}
	case "lambda":
		var out []string
		for k, v := range vars {
			if strings.HasSuffix(k, "_VERSION") {
				out = append(out, fmt.Sprint(v))
			}
		}
		slices.Sort(out)
		return out
	case "cognito-idp":
		// The user pool whose app client the function reads.
		if pool, ok := vars["COGNITO_USER_POOL_ID"]; ok && pool != "" {
			return []string{fmt.Sprintf("arn:%s:cognito-idp:%s:%s:userpool/%v", partition, region, account, pool)}
		}
	case "codedeploy":
		var out []string
		for _, dg := range app.ResourcesOfType("AWS::CodeDeploy::DeploymentGroup") {
			arn, _ := arnOf(app, dg)
			out = append(out, arn)
		}
		return out
	}
	return nil
}

// A failed first create leaves nothing billed behind, and the rollback can
// delete what it created. CloudFormation's DeletionPolicy
// RetainExceptOnCreate (CloudFormation user guide, "DeletionPolicy
// attribute"): "retains resources on stack deletion but deletes them when
// the stack's creation fails and rolls back"; UpdateReplacePolicy takes only
// Delete, Retain and Snapshot. DynamoDB's rule (developer guide, "Using
// deletion protection"): a table with deletion protection on "can't be
// deleted" by anyone, the rollback included, which would leave the stack in
// ROLLBACK_FAILED.
func TestFailedFirstCreateLeavesNothing(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"default", "dev", "prod"} {
		e := loadEnv(t, name)
		tables := e.app.ResourcesOfType("AWS::DynamoDB::Table")
		if len(tables) == 0 {
			t.Fatalf("%s: no table", name)
		}
		failedCreateLeavesNoTable(t, e.app, tables)
	}
}

func failedCreateLeavesNoTable(t *testing.T, app *samtemplate.Resolved, tables []string) {
	t.Helper()
	for _, id := range tables {
		if p := app.Attribute(id, "DeletionPolicy"); p != "RetainExceptOnCreate" {
			t.Errorf("%s DeletionPolicy %v: a failed first create leaves the table (and its point-in-time recovery) behind; want RetainExceptOnCreate", id, p)
		}
		if p := app.Attribute(id, "UpdateReplacePolicy"); p != "Retain" {
			t.Errorf("%s UpdateReplacePolicy %v, want Retain (a replacement never deletes the plants)", id, p)
		}
		p, err := app.Properties(id)
		if err != nil {
			t.Fatal(err)
		}
		if p["DeletionProtectionEnabled"] == true {
			t.Errorf("%s has DeletionProtectionEnabled: the rollback of a failed first create cannot delete it", id)
		}
	}
}

// declaresLogGroup says whether the stack makes the log group name.
func declaresLogGroup(app *samtemplate.Resolved, name string) bool {
	for _, id := range app.ResourcesOfType("AWS::Logs::LogGroup") {
		if v, _ := app.Value(map[string]any{"Ref": id}); v == name {
			return true
		}
	}
	return false
}
