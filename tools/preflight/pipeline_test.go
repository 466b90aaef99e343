package preflight

import (
	"fmt"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

func stackArn(name string) string {
	return fmt.Sprintf("arn:%s:cloudformation:%s:%s:stack/%s/0f0e0d0c-0b0a-0908-0706-050403020100", partition, region, account, name)
}

// pipelineRoles are an environment's deploy and execution roles.
func (e env) pipelineRoles(t *testing.T) (deploy, exec role) {
	t.Helper()
	return e.role(t, e.pipeline, "DeployRole"), e.role(t, e.pipeline, "CloudFormationExecutionRole")
}

// Only the jobs of the role's own GitHub environment may assume its deploy
// role. GitHub's rule (Security hardening with OpenID Connect, "Filtering
// for a specific environment"): a job that references an environment gets
// the sub repo:<owner>/<repo>:environment:<name>, with no branch in it; which
// branches may run such a job is the environment's deployment branch policy
// (docs/deploy.md sets it to main).
func TestDeployRolesTrustTheirEnvironmentOnly(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dev", "prod"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := loadEnv(t, name)
			deploy, _ := e.pipelineRoles(t)
			trust := func(sub, aud string) iameval.Question {
				return iameval.Question{ID: sub + " " + aud, Trust: true, Principal: oidcProvider, Action: "sts:AssumeRoleWithWebIdentity",
					Resource: deploy.arn, Account: account, ResourcePolicy: deploy.trust, Context: map[string]any{githubSub: sub, githubAud: aud}}
			}
			other := map[string]string{"dev": "prod", "prod": "dev"}[name]
			expect(t, true, "the environment's own jobs", trust("repo:plantstore/plant-store:environment:"+name, "sts.amazonaws.com"))
			expect(t, false, "anyone else",
				trust("repo:plantstore/plant-store:environment:"+other, "sts.amazonaws.com"),
				trust("repo:plantstore/plant-store:ref:refs/heads/main", "sts.amazonaws.com"),
				trust("repo:plantstore/plant-store:ref:refs/heads/feature", "sts.amazonaws.com"),
				trust("repo:plantstore/plant-store:pull_request", "sts.amazonaws.com"),
				trust("repo:plantstore/plant-store-fork:environment:"+name, "sts.amazonaws.com"),
				trust("repo:someone/plant-store:environment:"+name, "sts.amazonaws.com"),
				trust("repo:plantstore/plant-store:environment:"+name, "another-audience"),
			)
		})
	}
}

// The deploy role can make every call that the workflow's `sam deploy
// --config-env <env> --s3-bucket B --role-arn R --no-confirm-changeset` and
// its smoke step make (SAM CLI: samcli/lib/package/s3_uploader.py uploads
// with HeadObject and PutObject; samcli/lib/deploy/deployer.py calls
// DescribeStacks, CreateChangeSet with the transform and RoleARN,
// DescribeChangeSet, ExecuteChangeSet, DescribeStackEvents; the smoke step
// reads the outputs and the Cognito client by the pool's tag).
func TestDeployRoleCanDeployItsStack(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dev", "prod"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := loadEnv(t, name)
			deploy, exec := e.pipelineRoles(t)
			stack, _ := deployConfig(t, name)
			bucket, _ := e.pipeline.Value(map[string]any{"Fn::GetAtt": []any{"ArtifactsBucket", "Arn"}})
			object := fmt.Sprintf("%v/%s/0123456789abcdef0123456789abcdef", bucket, stack)
			var qs []iameval.Question
			for _, a := range []string{"DescribeStacks", "CreateChangeSet", "DescribeChangeSet", "ExecuteChangeSet", "DescribeStackEvents", "GetTemplateSummary"} {
				qs = append(qs, deploy.ask("cloudformation:"+a, stackArn(stack), nil))
			}
			// CreateChangeSet is also authorized on the transform
			// (arn:aws:cloudformation:<region>:aws:transform/Serverless-2016-10-31,
			// the role's Transform statement); AWS's service reference has no
			// resource type for it, so the evaluator cannot be asked, and the
			// first real deploy proves it.
			qs = append(qs,
				deploy.ask("s3:GetObject", object, nil), // HeadObject
				deploy.ask("s3:PutObject", object, nil),
				deploy.ask("iam:PassRole", exec.arn, map[string]any{"iam:PassedToService": "cloudformation.amazonaws.com"}),
			)
			for _, pool := range e.app.ResourcesOfType("AWS::Cognito::UserPool") {
				arn, _ := e.app.Value(map[string]any{"Fn::GetAtt": []any{pool, "Arn"}})
				qs = append(qs, deploy.ask("cognito-idp:DescribeUserPoolClient", fmt.Sprint(arn), tagContext(t, e.app, pool)))
			}
			expect(t, true, "sam deploy and the smoke step", qs...)
		})
	}
}

// tagContext is the aws:ResourceTag/* context IAM gives a request on a
// resource: the tags the template sets on it. CloudFormation adds its own
// aws:cloudformation:* tags only to resources whose type takes stack-level
// tags; a user pool's tags are its UserPoolTags alone.
func tagContext(t *testing.T, r *samtemplate.Resolved, id string) map[string]any {
	t.Helper()
	if _, err := r.Properties(id); err != nil {
		t.Fatal(err)
	}
	return resourceTags(r, id)
}

// Every aws:ResourceTag condition of the pipeline's roles names a tag that
// template.yaml sets, with the value the condition wants, on a resource of
// the service the statement is about.
func TestResourceTagConditionsNameTagsTheTemplateSets(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"dev", "prod"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := loadEnv(t, name)
			conditions := 0
			for _, id := range e.pipeline.ResourcesOfType("AWS::IAM::Role") {
				ro := e.role(t, e.pipeline, id)
				for _, doc := range ro.identity {
					for _, st := range asList(doc.(map[string]any)["Statement"]) {
						s := st.(map[string]any)
						cond, _ := s["Condition"].(map[string]any)
						for _, kv := range cond {
							for k, v := range kv.(map[string]any) {
								tag, ok := strings.CutPrefix(k, "aws:ResourceTag/")
								if !ok {
									continue
								}
								conditions++
								service, _, _ := strings.Cut(fmt.Sprint(asList(s["Action"])[0]), ":")
								if !e.templateTags(t, service, tag, fmt.Sprint(v)) {
									t.Errorf("%s statement %v asks for the tag %s=%v, which template.yaml sets on no %s resource of %s", id, s["Sid"], tag, v, service, name)
								}
							}
						}
					}
				}
			}
			if conditions == 0 {
				t.Fatal("no resource-tag conditions found; the smoke step's Cognito read relies on one")
			}
		})
	}
}

// templateTags says whether the app stack sets tag=value on a resource of the
// service (by its CloudFormation type's namespace).
func (e env) templateTags(t *testing.T, service, tag, value string) bool {
	t.Helper()
	prefix := map[string]string{"cognito-idp": "AWS::Cognito::", "lambda": "AWS::Lambda::", "dynamodb": "AWS::DynamoDB::", "apigateway": "AWS::ApiGateway::"}[service]
	if prefix == "" {
		t.Fatalf("no CloudFormation namespace known for the service %s", service)
	}
	for _, id := range e.app.ResourceIDs() {
		res, _ := e.app.Resource(id)
		typ, _ := res["Type"].(string)
		if strings.HasPrefix(typ, prefix) && tagContext(t, e.app, id)["aws:ResourceTag/"+tag] == value {
			return true
		}
	}
	return false
}

// What a push to any branch could try through the dev environment (a job of
// the dev environment runs whatever the branch holds, until the
// environment's deployment branches refuse it) is denied by IAM itself:
// the dev deploy role cannot touch the prod stack or the pipeline stacks, nor
// hand over a role it does not own; the dev execution role cannot create or
// change a role without the dev boundary, attach AdministratorAccess, lift
// the boundary, pass another environment's roles, or reach prod's functions,
// tables or user pool; and a role inside the boundary stays inside it even
// with AdministratorAccess attached.
func TestAttackersPathsAreDenied(t *testing.T) {
	t.Parallel()
	dev, prod := loadEnv(t, "dev"), loadEnv(t, "prod")
	deploy, exec := dev.pipelineRoles(t)
	_, prodExec := prod.pipelineRoles(t)
	boundary, _ := dev.pipeline.Value(map[string]any{"Ref": "PermissionsBoundary"})
	prodBoundary, _ := prod.pipeline.Value(map[string]any{"Ref": "PermissionsBoundary"})
	iamArn := func(kind, name string) string {
		return fmt.Sprintf("arn:%s:iam::%s:%s/%s", partition, account, kind, name)
	}
	admin := iamArn("policy", "AdministratorAccess")
	admin = strings.Replace(admin, "::"+account+":", "::aws:", 1)
	devRole, prodRole := iamArn("role", "plant-store-dev-Evil-PREFLIGHT1AB"), iamArn("role", "plant-store-prod-CreatePlantRole-PREFLIGHT1AB")
	pipelineRole := iamArn("role", "plant-store-pipeline-dev-DeployRole-PREFLIGHT1AB")
	withBoundary := map[string]any{"iam:PermissionsBoundary": boundary}
	prodPool := fmt.Sprintf("arn:%s:cognito-idp:%s:%s:userpool/%s_ProdPool1", partition, region, account, region)
	lambdaArn := func(name string) string {
		return fmt.Sprintf("arn:%s:lambda:%s:%s:function:%s", partition, region, account, name)
	}
	var qs []iameval.Question
	for _, stack := range []string{"plant-store-prod", "plant-store-pipeline-dev", "plant-store-pipeline-prod"} {
		for _, a := range []string{"CreateChangeSet", "ExecuteChangeSet", "UpdateStack", "DeleteStack", "CreateStack"} {
			qs = append(qs, deploy.ask("cloudformation:"+a, stackArn(stack), nil))
		}
	}
	qs = append(qs,
		deploy.ask("iam:PassRole", prodExec.arn, map[string]any{"iam:PassedToService": "cloudformation.amazonaws.com"}),
		deploy.ask("iam:PassRole", exec.arn, map[string]any{"iam:PassedToService": "lambda.amazonaws.com"}),
		deploy.ask("cognito-idp:DescribeUserPoolClient", prodPool, map[string]any{"aws:ResourceTag/PlantStoreStack": "plant-store-prod"}),

		exec.ask("iam:CreateRole", devRole, nil),
		exec.ask("iam:CreateRole", devRole, map[string]any{"iam:PermissionsBoundary": prodBoundary}),
		exec.ask("iam:CreateRole", devRole, map[string]any{"iam:PermissionsBoundary": admin}),
		exec.ask("iam:PutRolePolicy", devRole, nil),
		exec.ask("iam:AttachRolePolicy", devRole, map[string]any{"iam:PermissionsBoundary": boundary, "iam:PolicyARN": admin}),
		exec.ask("iam:AttachRolePolicy", devRole, map[string]any{"iam:PolicyARN": strings.Replace(admin, "AdministratorAccess", "service-role/AWSCodeDeployRoleForLambda", 1)}),
		exec.ask("iam:PutRolePermissionsBoundary", devRole, map[string]any{"iam:PermissionsBoundary": admin}),
		exec.ask("iam:DeleteRolePermissionsBoundary", devRole, withBoundary),
		exec.ask("iam:PutRolePolicy", pipelineRole, withBoundary),
		exec.ask("iam:UpdateAssumeRolePolicy", pipelineRole, nil),
		exec.ask("iam:PutRolePolicy", prodRole, withBoundary),
		exec.ask("iam:CreatePolicyVersion", fmt.Sprint(boundary), nil),
		exec.ask("iam:CreateUser", iamArn("user", "plant-store-dev-evil"), nil),
		exec.ask("iam:PassRole", prodRole, map[string]any{"iam:PassedToService": "lambda.amazonaws.com"}),
		exec.ask("iam:PassRole", pipelineRole, map[string]any{"iam:PassedToService": "lambda.amazonaws.com"}),
		exec.ask("iam:PassRole", devRole, map[string]any{"iam:PassedToService": "ec2.amazonaws.com"}),
		exec.ask("lambda:UpdateFunctionCode", lambdaArn("plant-store-prod-CreatePlantFunction-PREFLIGHT1AB"), nil),
		exec.ask("lambda:AddPermission", lambdaArn("CodeDeployHook_plant-store-prod_pretraffic"), nil),
		exec.ask("dynamodb:DeleteTable", fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/plant-store-prod-PlantsTable-PREFLIGHT1AB", partition, region, account), nil),
		exec.ask("cognito-idp:CreateUserPoolClient", prodPool, map[string]any{"aws:ResourceTag/PlantStoreStack": "plant-store-prod"}),
	)
	// A role the dev stack creates, with AdministratorAccess attached, is
	// still held by the boundary.
	bounded := role{id: "BoundedAdmin", arn: devRole, identity: []any{dev.managed(t, admin)}, boundaries: []any{dev.managed(t, fmt.Sprint(boundary))}}
	qs = append(qs,
		bounded.ask("iam:CreateRole", iamArn("role", "anything"), nil),
		bounded.ask("iam:AttachRolePolicy", devRole, nil),
		bounded.ask("s3:GetObject", "arn:aws:s3:::some-bucket/secret", nil),
		bounded.ask("dynamodb:PutItem", fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/plant-store-prod-PlantsTable-PREFLIGHT1AB", partition, region, account), nil),
		bounded.ask("lambda:InvokeFunction", lambdaArn("plant-store-prod-CreatePlantFunction-PREFLIGHT1AB"), nil),
		bounded.ask("sts:AssumeRole", pipelineRole, nil),
	)
	expect(t, false, "an attacker's path", qs...)
	// And what the dev stack itself does stays allowed.
	expect(t, true, "the dev stack's own roles",
		exec.ask("iam:CreateRole", devRole, withBoundary),
		exec.ask("iam:PutRolePolicy", devRole, withBoundary),
		exec.ask("iam:AttachRolePolicy", devRole, map[string]any{"iam:PermissionsBoundary": boundary, "iam:PolicyARN": strings.Replace(admin, "AdministratorAccess", "service-role/AWSCodeDeployRoleForLambda", 1)}),
		// What SAM attaches to a role it makes for a function.
		exec.ask("iam:AttachRolePolicy", devRole, map[string]any{"iam:PermissionsBoundary": boundary, "iam:PolicyARN": strings.Replace(admin, "AdministratorAccess", "service-role/AWSLambdaBasicExecutionRole", 1)}),
		exec.ask("iam:PassRole", devRole, map[string]any{"iam:PassedToService": "lambda.amazonaws.com"}),
	)
}
