package preflight

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/iameval"
)

// handlerPermissions is one type's entry of testdata/handlers/handlers.json:
// the permissions CloudFormation's handlers declare for it (README.md there).
type handlerPermissions struct {
	Source string   `json:"source"`
	Create []string `json:"create"`
	Update []string `json:"update"`
	Delete []string `json:"delete"`
}

// notUsed are the handler permissions for features the template does not
// use: a schema lists every call any property may need, and a handler makes
// a call only when its property is set. Each with the property it waits for.
var notUsed = map[string]string{
	"kms:":                                              "no resource names a customer managed KMS key (KmsKeyArn, SSESpecification.KMSMasterKeyId)",
	"ec2:":                                              "no function has a VpcConfig",
	"elasticfilesystem:":                                "no function has FileSystemConfigs",
	"s3files:":                                          "no function has FileSystemConfigs",
	"kinesis:":                                          "the table has no KinesisStreamSpecification",
	"firehose:":                                         "no log group delivers to Firehose",
	"cloudfront:":                                       "the user pool domain is a prefix domain (no CustomDomainConfig)",
	"amplify:":                                          "the web ACL is associated with the API's stage only",
	"apprunner:":                                        "the web ACL is associated with the API's stage only",
	"appsync:":                                          "the web ACL is associated with the API's stage only",
	"bedrock-agentcore:":                                "the web ACL is associated with the API's stage only",
	"elasticloadbalancing:":                             "the web ACL is associated with the API's stage only",
	"cognito-idp:AssociateWebACL":                       "the web ACL is associated with the API's stage only",
	"cognito-idp:DisassociateWebACL":                    "the web ACL is associated with the API's stage only",
	"cognito-idp:GetWebACLForResource":                  "the web ACL is associated with the API's stage only",
	"wafv2:PutPermissionPolicy":                         "no web ACL is shared with another account",
	"wafv2:GetPermissionPolicy":                         "no web ACL is shared with another account",
	"s3:GetObjectVersion":                               "sam deploy's Code names no S3ObjectVersion",
	"s3:REST.PUT.OBJECT":                                "no log group delivers to S3",
	"iam:CreateServiceLinkedRole":                       "the user pool sends no SMS (its service-linked role is for SMS)",
	"lambda:GetLayerVersion":                            "no function has Layers",
	"lambda:GetCodeSigningConfig":                       "no function has a CodeSigningConfigArn",
	"lambda:PassCapacityProvider":                       "no function runs on a capacity provider",
	"lambda:PutFunctionScalingConfig":                   "no function runs on a capacity provider",
	"lambda:PutProvisionedConcurrencyConfig":            "no alias or version has ProvisionedConcurrencyConfig",
	"lambda:GetProvisionedConcurrencyConfig":            "no alias or version has ProvisionedConcurrencyConfig",
	"lambda:DeleteProvisionedConcurrencyConfig":         "no alias or version has ProvisionedConcurrencyConfig",
	"dynamodb:CreateTableReplica":                       "the table is not a global table",
	"dynamodb:AssociateTableReplica":                    "the table is not a global table",
	"dynamodb:ImportTable":                              "the table has no ImportSourceSpecification",
	"dynamodb:DescribeImport":                           "the table has no ImportSourceSpecification",
	"codedeploy:RegisterOnPremisesInstance":             "the deployment groups deploy Lambda functions, no on-premises instances",
	"iam:PassRole/AWS::Cognito::UserPool":               "the user pool has no SmsConfiguration, whose role is the only one it passes",
	"iam:/AWS::Cognito::UserPoolClient":                 "the app clients have no AnalyticsConfiguration (the role Cognito would pass to Pinpoint)",
	"logs:/AWS::DynamoDB::Table":                        "the table has no ImportSourceSpecification (an import reads S3 and logs to CloudWatch Logs)",
	"s3:/AWS::DynamoDB::Table":                          "the table has no ImportSourceSpecification",
	"s3:GetObject/AWS::ApiGateway::RestApi":             "the API's definition is inline (Body), not BodyS3Location",
	"iam:PassRole/AWS::ApiGateway::RestApi":             "no property of the template's RestApi names a role",
	"logs:PutResourcePolicy/AWS::Logs::LogGroup":        "no log group has a ResourcePolicyDocument",
	"logs:DescribeResourcePolicies/AWS::Logs::LogGroup": "no log group has a ResourcePolicyDocument",
	"logs:CreateLogDelivery/AWS::Logs::LogGroup":        "no log group delivers elsewhere",
	"logs:AssociateKmsKey":                              "no log group has a KmsKeyId",
	"logs:DisassociateKmsKey":                           "no log group has a KmsKeyId",
	"logs:PutDataProtectionPolicy":                      "no log group has a DataProtectionPolicy",
	"logs:GetDataProtectionPolicy":                      "no log group has a DataProtectionPolicy",
	"logs:DeleteDataProtectionPolicy":                   "no log group has a DataProtectionPolicy",
}

// notAskable are handler calls the evaluator cannot be asked: AWS's service
// reference, which it reads, has no resource type for the ARN the call names.
// The execution role allows each (apigateway:* on every API, wafv2:* on the
// stack's web ACL), so only the first real deploy proves them.
var notAskable = map[string]string{
	// iam-data lists the Deployments and Stages resource types of API
	// Gateway with two ARN patterns in one string (/apis/... and
	// /restapis/...), which matches no ARN.
	"apigateway:POST/AWS::ApiGateway::Deployment":            "the evaluator's Deployments resource type matches no ARN (two patterns in one string)",
	"apigateway:POST/AWS::ApiGateway::Stage":                 "the evaluator's Stages resource type matches no ARN (two patterns in one string)",
	"apigateway:SetWebACL/AWS::WAFv2::WebACLAssociation":     "the stage's ARN matches no resource type of apigateway:SetWebACL in the reference",
	"wafv2:DisassociateWebACL/AWS::WAFv2::WebACLAssociation": "DisassociateWebACL names the associated resource (the stage), which matches no wafv2 resource type in the reference",
}

// deniedOnPurpose are handler permissions the execution role refuses by
// design, with what that costs: a template change that needs one fails.
var deniedOnPurpose = map[string]string{
	"iam:DeleteRolePermissionsBoundary": "removing a role's PermissionsBoundary is lifting it; the boundary stays",
}

func unused(action, typ string) (string, bool) {
	if why, ok := notUsed[action+"/"+typ]; ok {
		return why, true
	}
	if why, ok := notUsed[action]; ok {
		return why, true
	}
	service, _, _ := strings.Cut(action, ":")
	if why, ok := notUsed[service+":/"+typ]; ok {
		return why, true
	}
	why, ok := notUsed[service+":"]
	return why, ok
}

// handlerCall is one permission a handler needs, asked on the resource it
// names for one resource of the stack.
type handlerCall struct {
	action, resource string
	context          map[string]any
}

// TestExecutionRoleCanRunTheHandlers asks the evaluator, for every resource
// of the dev and prod stacks, whether the pipeline's CloudFormation execution
// role allows each permission its type's handlers declare for create,
// update and delete, on that resource's ARN (with the context IAM would
// see: the boundary and policy of a role, the user pool's tag, the service a
// role is passed to). Permissions for features the template does not use
// are listed with their reason (notUsed); a permission in neither the stack's
// calls nor that list fails, so a new resource type or property is a
// decision, not a surprise at deploy time.
func TestExecutionRoleCanRunTheHandlers(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join("testdata", "handlers", "handlers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var handlers map[string]handlerPermissions
	if err := json.Unmarshal(raw, &handlers); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"dev", "prod"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			e := loadEnv(t, name)
			_, exec := e.pipelineRoles(t)
			var allowed, denied []iameval.Question
			undecided := map[string]bool{}
			types := map[string]bool{}
			for _, typ := range stackTypes(e.app) {
				types[typ] = true
				h, ok := handlers[typ]
				if !ok {
					if typ != "AWS::Route53::RecordSet" && typ != "AWS::CloudFormation::WaitConditionHandle" {
						t.Errorf("testdata/handlers has no entry for %s, a type of the %s stack", typ, name)
					}
					continue
				}
				perms := map[string]bool{}
				for _, list := range [][]string{h.Create, h.Update, h.Delete} {
					for _, p := range list {
						perms[p] = true
					}
				}
				for _, id := range e.app.ResourcesOfType(typ) {
					for p := range perms {
						if _, ok := unused(p, typ); ok {
							continue
						}
						if _, ok := notAskable[p+"/"+typ]; ok {
							continue
						}
						calls, ok := e.handlerCalls(t, typ, id, p)
						if !ok {
							undecided[typ+" "+p] = true
							continue
						}
						for _, c := range calls {
							q := exec.ask(c.action, c.resource, c.context)
							q.ID = id + " " + q.ID
							if _, no := deniedOnPurpose[p]; no {
								denied = append(denied, q)
							} else {
								allowed = append(allowed, q)
							}
						}
					}
				}
			}
			for _, u := range sortedKeys(undecided) {
				t.Errorf("the handlers of %s: decide where this permission is asked, or why the stack never needs it (notUsed)", u)
			}
			if len(allowed) < 100 {
				t.Fatalf("only %d handler calls asked; is testdata/handlers/handlers.json read?", len(allowed))
			}
			expect(t, true, "CloudFormation's handlers, as the execution role", allowed...)
			expect(t, false, "a handler permission denied on purpose", denied...)
		})
	}
}

func stackTypes(r *samtemplate.Resolved) []string {
	seen := map[string]bool{}
	for _, id := range r.ResourceIDs() {
		res, _ := r.Resource(id)
		if typ, _ := res["Type"].(string); typ != "" {
			seen[typ] = true
		}
	}
	return sortedKeys(seen)
}

func sortedKeys(m map[string]bool) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// handlerCalls turns a handler permission of resource id into the calls IAM
// authorizes: which resource each names, with what context. ok is false for
// a permission this test does not know how to place.
func (e env) handlerCalls(t *testing.T, typ, id, action string) ([]handlerCall, bool) {
	t.Helper()
	r := e.app
	s := r.Stack()
	prop := func(name string) string {
		p, err := r.Properties(id)
		if err != nil {
			t.Fatal(err)
		}
		v, _ := p[name].(string)
		return v
	}
	attr := func(id, a string) string {
		v, err := r.Value(map[string]any{"Fn::GetAtt": []any{id, a}})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(v)
	}
	ref := func(id string) string {
		v, err := r.Value(map[string]any{"Ref": id})
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprint(v)
	}
	arn := func(service, resource string) string {
		return fmt.Sprintf("arn:%s:%s:%s:%s:%s", s.Partition, service, s.Region, s.Account, resource)
	}
	one := func(resource string, ctx map[string]any) ([]handlerCall, bool) {
		return []handlerCall{{action, resource, ctx}}, true
	}
	service, _, _ := strings.Cut(action, ":")
	pool := func(poolID string) ([]handlerCall, bool) {
		return one(arn("cognito-idp", "userpool/"+poolID), map[string]any{"aws:ResourceTag/PlantStoreStack": s.Name})
	}
	deploymentGroup := func(app, group string) ([]handlerCall, bool) {
		switch action {
		case "codedeploy:GetApplicationRevision", "codedeploy:RegisterApplicationRevision", "codedeploy:GetApplication":
			return one(arn("codedeploy", "application:"+app), nil)
		case "codedeploy:GetDeploymentConfig":
			return one(arn("codedeploy", "deploymentconfig:CodeDeployDefault.LambdaAllAtOnce"), nil)
		}
		return one(arn("codedeploy", "deploymentgroup:"+app+"/"+group), nil)
	}
	switch {
	case action == "iam:PassRole":
		switch typ {
		case "AWS::Lambda::Function":
			return one(prop("Role"), map[string]any{"iam:PassedToService": "lambda.amazonaws.com"})
		case "AWS::CodeDeploy::DeploymentGroup":
			return one(prop("ServiceRoleArn"), map[string]any{"iam:PassedToService": "codedeploy.amazonaws.com"})
		case "AWS::ApiGateway::Account":
			return one(prop("CloudWatchRoleArn"), map[string]any{"iam:PassedToService": "apigateway.amazonaws.com"})
		}
		return nil, false
	case action == "iam:GetRole" && typ == "AWS::ApiGateway::Account":
		return one(prop("CloudWatchRoleArn"), nil)
	case action == "s3:GetObject" && typ == "AWS::Lambda::Function":
		bucket, err := e.pipeline.Value(map[string]any{"Fn::GetAtt": []any{"ArtifactsBucket", "Arn"}})
		if err != nil {
			t.Fatal(err)
		}
		return one(fmt.Sprintf("%v/%s/0123456789abcdef0123456789abcdef", bucket, s.Name), nil) // sam deploy's upload
	case service == "codedeploy" && typ == "AWS::Lambda::Alias":
		p, err := r.Value(r.Attribute(id, "UpdatePolicy"))
		if err != nil {
			t.Fatal(err)
		}
		policy, _ := p.(map[string]any)
		u, _ := policy["CodeDeployLambdaAliasUpdate"].(map[string]any)
		if u == nil {
			return nil, true // an alias without a deployment group makes no CodeDeploy call
		}
		return deploymentGroup(fmt.Sprint(u["ApplicationName"]), fmt.Sprint(u["DeploymentGroupName"]))
	case service != serviceOf(typ):
		return e.crossService(typ, action, prop)
	}
	switch typ {
	case "AWS::Lambda::Function":
		return one(attr(id, "Arn"), nil)
	case "AWS::Lambda::Version", "AWS::Lambda::Alias", "AWS::Lambda::Permission":
		return one(r.FunctionArn(prop("FunctionName")), nil)
	case "AWS::IAM::Role":
		ctx := map[string]any{}
		p, _ := r.Properties(id)
		if b, ok := p["PermissionsBoundary"].(string); ok {
			ctx["iam:PermissionsBoundary"] = b
		}
		switch action {
		case "iam:AttachRolePolicy", "iam:DetachRolePolicy":
			var calls []handlerCall
			for _, policy := range asList(p["ManagedPolicyArns"]) {
				c := map[string]any{"iam:PolicyARN": fmt.Sprint(policy)}
				for k, v := range ctx {
					c[k] = v
				}
				calls = append(calls, handlerCall{action, attr(id, "Arn"), c})
			}
			return calls, true
		case "iam:CreateRole", "iam:PutRolePolicy", "iam:PutRolePermissionsBoundary", "iam:DeleteRolePolicy", "iam:DeleteRolePermissionsBoundary":
			return one(attr(id, "Arn"), ctx)
		}
		return one(attr(id, "Arn"), nil)
	case "AWS::DynamoDB::Table":
		return one(attr(id, "Arn"), nil)
	case "AWS::Logs::LogGroup":
		return one(attr(id, "Arn"), nil)
	case "AWS::Logs::MetricFilter":
		return one(arn("logs", "log-group:"+prop("LogGroupName")+":*"), nil)
	case "AWS::Logs::QueryDefinition":
		return one("*", nil)
	case "AWS::CloudWatch::Alarm":
		return one(attr(id, "Arn"), nil)
	case "AWS::CloudWatch::Dashboard":
		return one(fmt.Sprintf("arn:%s:cloudwatch::%s:dashboard/%s", s.Partition, s.Account, ref(id)), nil)
	case "AWS::CodeDeploy::Application":
		return one(arn("codedeploy", "application:"+ref(id)), nil)
	case "AWS::CodeDeploy::DeploymentGroup":
		return deploymentGroup(prop("ApplicationName"), ref(id))
	case "AWS::Cognito::UserPool":
		if action == "cognito-idp:CreateUserPool" {
			p, _ := r.Properties(id)
			ctx := map[string]any{}
			if tags, ok := p["UserPoolTags"].(map[string]any); ok {
				for k, v := range tags {
					ctx["aws:RequestTag/"+k] = fmt.Sprint(v)
				}
			}
			return one("*", ctx)
		}
		return pool(ref(id))
	case "AWS::Cognito::UserPoolClient", "AWS::Cognito::UserPoolResourceServer", "AWS::Cognito::UserPoolDomain":
		if action == "cognito-idp:DescribeUserPoolDomain" {
			return one("*", nil)
		}
		return pool(prop("UserPoolId"))
	case "AWS::ApiGateway::RestApi", "AWS::ApiGateway::Deployment", "AWS::ApiGateway::Stage", "AWS::ApiGateway::Account",
		"AWS::ApiGateway::DomainName", "AWS::ApiGateway::BasePathMapping":
		// API Gateway authorizes by HTTP verb on the path of the call.
		path := map[string]string{
			"AWS::ApiGateway::RestApi": "/restapis/preflight1", "AWS::ApiGateway::Deployment": "/restapis/preflight1/deployments/abc123",
			"AWS::ApiGateway::Stage": "/restapis/preflight1/stages/v1", "AWS::ApiGateway::Account": "/account",
			"AWS::ApiGateway::DomainName": "/domainnames/api.example.com", "AWS::ApiGateway::BasePathMapping": "/domainnames/api.example.com/basepathmappings/(none)",
		}[typ]
		if action == "apigateway:POST" { // a create posts to the collection, or to the API for its parts
			path = map[string]string{"AWS::ApiGateway::RestApi": "/restapis", "AWS::ApiGateway::DomainName": "/domainnames"}[typ]
			if path == "" {
				path = "/restapis/preflight1"
			}
		}
		return one(fmt.Sprintf("arn:%s:apigateway:%s::%s", s.Partition, s.Region, path), nil)
	case "AWS::WAFv2::WebACL":
		return one(attr(id, "Arn"), nil)
	case "AWS::WAFv2::WebACLAssociation":
		return one(prop("WebACLArn"), nil)
	}
	return nil, false
}

// crossService places the handler permissions of one service that another
// type's handler needs, where the template uses them.
func (e env) crossService(typ, action string, prop func(string) string) ([]handlerCall, bool) {
	s := e.app.Stack()
	switch {
	case action == "apigateway:SetWebACL" && typ == "AWS::WAFv2::WebACLAssociation":
		return []handlerCall{{action, fmt.Sprintf("arn:%s:apigateway:%s::/restapis/preflight1/stages/v1", s.Partition, s.Region), nil}}, true
	}
	return nil, false
}

// serviceOf is the IAM service prefix of a CloudFormation resource type.
func serviceOf(typ string) string {
	return map[string]string{
		"ApiGateway": "apigateway", "CloudWatch": "cloudwatch", "CodeDeploy": "codedeploy", "Cognito": "cognito-idp",
		"DynamoDB": "dynamodb", "IAM": "iam", "Lambda": "lambda", "Logs": "logs", "Route53": "route53", "WAFv2": "wafv2",
	}[strings.Split(typ, "::")[1]]
}
