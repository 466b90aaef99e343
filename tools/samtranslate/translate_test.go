package samtranslate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/tools/toolcache"
)

// translate returns the CloudFormation template that the SAM translator makes
// of template.yaml; it skips without the translator, except under CI=true.
func translate(t *testing.T) *samtemplate.Template {
	t.Helper()
	doc, err := Translate(templatePath)
	if errors.Is(err, ErrNoTranslator) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return &samtemplate.Template{Doc: doc}
}

func TestTranslated(t *testing.T) {
	t.Parallel()
	cfn := translate(t)
	stages := cfn.Resources("AWS::ApiGateway::Stage")
	if len(stages) != 1 {
		t.Fatalf("stages %v, want one", stages)
	}
	stage := cfn.Map("Resources", stages[0], "Properties")

	t.Run("the stage waits for the account setting", func(t *testing.T) {
		// Stage -> (Ref) RestApi -> DependsOn ApiGatewayAccountReady ->
		// (Ref in its Metadata, when the stack sets it) ApiGatewayAccount.
		if fmt.Sprint(stage["RestApiId"]) != "map[Ref:PlantsApi]" || stage["StageName"] != "v1" {
			t.Fatalf("stage %v is not PlantsApi's v1", stage)
		}
		deps := cfn.Get("Resources", "PlantsApi", "DependsOn")
		if !slices.Contains(strings.Fields(strings.Trim(fmt.Sprint(deps), "[]")), "ApiGatewayAccountReady") {
			t.Errorf("PlantsApi DependsOn = %v, want ApiGatewayAccountReady", deps)
		}
		meta := fmt.Sprint(cfn.Get("Resources", "ApiGatewayAccountReady", "Metadata"))
		if !strings.Contains(meta, "CreateApiGatewayAccount") || !strings.Contains(meta, "map[Ref:ApiGatewayAccount]") {
			t.Errorf("ApiGatewayAccountReady Metadata = %s, want !If [CreateApiGatewayAccount, !Ref ApiGatewayAccount, ...]", meta)
		}
		for _, id := range []string{"ApiGatewayAccount", "ApiGatewayCloudWatchRole"} {
			r := cfn.Map("Resources", id)
			if r["Condition"] != "CreateApiGatewayAccount" || r["DeletionPolicy"] != "Retain" || r["UpdateReplacePolicy"] != "Retain" {
				t.Errorf("%s: Condition %v, DeletionPolicy %v, UpdateReplacePolicy %v; want the condition and Retain", id, r["Condition"], r["DeletionPolicy"], r["UpdateReplacePolicy"])
			}
		}
		if d := cfn.Get("Parameters", "ApiAccessLogs", "Default"); d != "off" {
			t.Errorf("ApiAccessLogs defaults to %v; the default must need and touch no account setting", d)
		}
		if !strings.Contains(fmt.Sprint(stage["AccessLogSetting"]), "Fn::If:[AccessLogsOn") {
			t.Errorf("AccessLogSetting = %v, want it only with AccessLogsOn", stage["AccessLogSetting"])
		}
	})

	t.Run("throttling", func(t *testing.T) {
		ms := asSlice(stage["MethodSettings"])
		if len(ms) != 1 || fmt.Sprint(ms[0].(map[string]any)["ThrottlingRateLimit"]) != "map[Ref:ThrottlingRateLimit]" {
			t.Errorf("MethodSettings = %v", ms)
		}
	})

	body := cfn.Map("Resources", "PlantsApi", "Properties", "Body")
	t.Run("the authorizer guards the route", func(t *testing.T) {
		scheme, _ := body["components"].(map[string]any)["securitySchemes"].(map[string]any)["TokenAuthorizer"].(map[string]any)
		az, _ := scheme["x-amazon-apigateway-authorizer"].(map[string]any)
		if scheme["in"] != "header" || scheme["name"] != "Authorization" || az["type"] != "token" {
			t.Errorf("TokenAuthorizer = %v, want a token authorizer on the Authorization header", scheme)
		}
		if ttl := az["authorizerResultTtlInSeconds"]; ttl != float64(300) {
			t.Errorf("authorizer cache TTL = %v, want 300 (docs/security.md gives the figures)", ttl)
		}
		if !strings.HasPrefix(fmt.Sprint(az["identityValidationExpression"]), "^[Bb][Ee][Aa][Rr][Ee][Rr]") {
			t.Errorf("identityValidationExpression = %v", az["identityValidationExpression"])
		}
		post, _ := body["paths"].(map[string]any)["/plants"].(map[string]any)["post"].(map[string]any)
		if fmt.Sprint(post["security"]) != "[map[TokenAuthorizer:[]]]" {
			t.Errorf("POST /plants security = %v", post["security"])
		}
		integ, _ := post["x-amazon-apigateway-integration"].(map[string]any)
		if integ["type"] != "aws_proxy" || !strings.Contains(fmt.Sprint(integ["uri"]), "/functions/${CreatePlantFunctionAliaslive}/invocations") {
			t.Errorf("POST /plants integration = %v, want aws_proxy to CreatePlantFunction's alias live", integ)
		}
		az2, _ := body["components"].(map[string]any)["securitySchemes"].(map[string]any)["TokenAuthorizer"].(map[string]any)["x-amazon-apigateway-authorizer"].(map[string]any)
		if uri := fmt.Sprint(az2["authorizerUri"]); !strings.Contains(uri, "Ref:AuthorizerFunctionAliaslive") {
			t.Errorf("authorizerUri = %s, want AuthorizerFunction's alias live", uri)
		}
		if len(body["paths"].(map[string]any)) != 1 || len(post) == 0 {
			t.Errorf("paths = %v, want POST /plants alone", body["paths"])
		}
	})

	t.Run("invoke permissions", func(t *testing.T) {
		perms := map[string]string{}
		for _, id := range cfn.Resources("AWS::Lambda::Permission") {
			p := cfn.Map("Resources", id, "Properties")
			if p["Principal"] != "apigateway.amazonaws.com" || p["Action"] != "lambda:InvokeFunction" {
				t.Errorf("%s: %v", id, p)
			}
			perms[fmt.Sprint(p["FunctionName"])] = fmt.Sprint(p["SourceArn"])
		}
		if len(perms) != 2 ||
			!strings.Contains(perms["map[Ref:CreatePlantFunctionAliaslive]"], "/POST/plants") ||
			!strings.Contains(perms["map[Ref:AuthorizerFunctionAliaslive]"], "/authorizers/*") {
			t.Errorf("permissions %v, want createplant's alias for POST /plants and the authorizer's alias for the API's authorizers only", perms)
		}
	})

	t.Run("gateway responses", func(t *testing.T) {
		grs, _ := body["x-amazon-apigateway-gateway-responses"].(map[string]any)
		for typ, status := range map[string]string{"UNAUTHORIZED": "401", "ACCESS_DENIED": "403", "MISSING_AUTHENTICATION_TOKEN": "404", "THROTTLED": "429", "REQUEST_TOO_LARGE": "400", "DEFAULT_4XX": "", "DEFAULT_5XX": ""} {
			gr, _ := grs[typ].(map[string]any)
			if gr == nil {
				t.Errorf("no gateway response %s", typ)
				continue
			}
			if status != "" && gr["statusCode"] != status {
				t.Errorf("%s status %v, want %s", typ, gr["statusCode"], status)
			}
			var e struct {
				Error   int32  `json:"error"`
				Message string `json:"message"`
			}
			tmpl := fmt.Sprint(gr["responseTemplates"].(map[string]any)["application/json"])
			if err := json.Unmarshal([]byte(tmpl), &e); err != nil || e.Error == 0 || e.Message == "" {
				t.Errorf("%s body %s is not an Error", typ, tmpl)
			}
			hdrs, _ := gr["responseParameters"].(map[string]any)
			if hdrs["gatewayresponse.header.Cache-Control"] != "'no-store'" {
				t.Errorf("%s headers %v", typ, hdrs)
			}
		}
	})

	// docs/deploy.md's "What the stack holds" states what this checks: each function
	// runs with a role of its own (no SAM-made role, no managed policy),
	// writes logs only into its own log group, and only createplant touches
	// data: PutItem and GetItem on the table.
	t.Run("IAM", func(t *testing.T) {
		if roles := cfn.Resources("AWS::IAM::Role"); !slices.Equal(roles, []string{"ApiGatewayCloudWatchRole", "AuthorizerRole", "CodeDeployRole", "CreatePlantRole", "PreTrafficRole"}) {
			t.Errorf("roles %v, want the three function roles, the CodeDeploy role (and the optional account logging role)", roles)
		}
		if p := fmt.Sprint(cfn.Get("Resources", "CodeDeployRole", "Properties", "ManagedPolicyArns")); p != "[map[Fn::Sub:arn:${AWS::Partition}:iam::aws:policy/service-role/AWSCodeDeployRoleForLambda]]" {
			t.Errorf("CodeDeploy's role has %s, want AWSCodeDeployRoleForLambda alone", p)
		}
		type grant struct{ actions, resource string }
		for fn, want := range map[string]map[string]grant{
			"CreatePlantFunction": {
				"PutAndReadPlants": {"[dynamodb:PutItem dynamodb:GetItem]", "map[Fn::GetAtt:[PlantsTable Arn]]"},
				"OwnLogGroup":      {"[logs:CreateLogStream logs:PutLogEvents]", "map[Fn::GetAtt:[CreatePlantLogGroup Arn]]"},
				"Traces":           {"[xray:PutTraceSegments xray:PutTelemetryRecords]", "*"},
			},
			"AuthorizerFunction": {
				"OwnLogGroup": {"[logs:CreateLogStream logs:PutLogEvents]", "map[Fn::GetAtt:[AuthorizerLogGroup Arn]]"},
				"Traces":      {"[xray:PutTraceSegments xray:PutTelemetryRecords]", "*"},
			},
			"PreTrafficFunction": {
				"InvokeNewVersions":  {"[lambda:InvokeFunction]", "[map[Fn::Sub:${CreatePlantFunction.Arn}:*] map[Fn::Sub:${AuthorizerFunction.Arn}:*]]"},
				"ReportToCodeDeploy": {"[codedeploy:PutLifecycleEventHookExecutionStatus]", "*"},
				"ReadAppClient":      {"[cognito-idp:DescribeUserPoolClient]", "map[Fn::GetAtt:[UserPool Arn]]"},
				"OwnLogGroup":        {"[logs:CreateLogStream logs:PutLogEvents]", "map[Fn::GetAtt:[PreTrafficLogGroup Arn]]"},
			},
		} {
			ref, _ := cfn.Get("Resources", fn, "Properties", "Role").(map[string]any)
			getAtt := fmt.Sprint(ref["Fn::GetAtt"])
			roleID, _, _ := strings.Cut(strings.Trim(getAtt, "[]"), " ")
			role := cfn.Map("Resources", roleID, "Properties")
			if role == nil || !strings.HasSuffix(getAtt, " Arn]") {
				t.Errorf("%s: Role = %v, want !GetAtt <its role>.Arn", fn, ref)
				continue
			}
			if _, ok := role["ManagedPolicyArns"]; ok {
				t.Errorf("%s: managed policies %v, want none", roleID, role["ManagedPolicyArns"])
			}
			got := map[string]grant{}
			for _, p := range asSlice(role["Policies"]) {
				doc, _ := p.(map[string]any)["PolicyDocument"].(map[string]any)
				for _, st := range asSlice(doc["Statement"]) {
					st := st.(map[string]any)
					// A statement for one kind of stack only: !If [UseCognito, {...}, !Ref AWS::NoValue].
					if choice, ok := st["Fn::If"].([]any); ok {
						if len(choice) != 3 || choice[0] != "UseCognito" || fmt.Sprint(choice[2]) != "map[Ref:AWS::NoValue]" {
							t.Errorf("%s: conditional statement %v, want !If [UseCognito, {...}, !Ref AWS::NoValue]", roleID, choice)
							continue
						}
						st, _ = choice[1].(map[string]any)
					}
					if st["Effect"] != "Allow" {
						t.Errorf("%s: statement %v", roleID, st)
					}
					got[fmt.Sprint(st["Sid"])] = grant{fmt.Sprint(st["Action"]), fmt.Sprint(st["Resource"])}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s (%s) may:\n%v\nwant:\n%v", fn, roleID, got, want)
			}
			var actions []string
			for _, g := range got {
				actions = append(actions, strings.Fields(strings.Trim(g.actions, "[]"))...)
			}
			slices.Sort(actions)
			if documented := documentedActions(t)[fn]; !slices.Equal(actions, documented) {
				t.Errorf("%s may %v; docs/security.md (\"What each function may do\") says %v", fn, actions, documented)
			}
			trust := fmt.Sprint(role["AssumeRolePolicyDocument"])
			if !strings.Contains(trust, "Service:lambda.amazonaws.com") || strings.Count(trust, "Effect:") != 1 {
				t.Errorf("%s trust policy %s, want Lambda alone", roleID, trust)
			}
		}
	})

	// docs/design.md, "Safe deployments": each function serves through its
	// alias live, CodeDeploy shifts that alias gradually and rolls it back on
	// the chosen alarms, and the PreTraffic hook proves a version first.
	t.Run("safe deployments", func(t *testing.T) {
		alarms := map[string]string{
			"CreatePlantFunction": "[map[Name:map[Ref:CreatePlantAliasErrorsAlarm]] map[Name:map[Ref:ReleaseServerErrorsAlarm]]]",
			"AuthorizerFunction":  "[map[Name:map[Ref:ReleaseServerErrorsAlarm]] map[Name:map[Ref:KeysUnavailableAlarm]]]",
		}
		for fn, want := range alarms {
			alias := cfn.Map("Resources", fn+"Aliaslive")
			if alias == nil || alias["Type"] != "AWS::Lambda::Alias" || cfn.Get("Resources", fn+"Aliaslive", "Properties", "Name") != "live" {
				t.Errorf("%s has no alias live", fn)
				continue
			}
			update := fmt.Sprint(cfn.Get("Resources", fn+"Aliaslive", "UpdatePolicy", "CodeDeployLambdaAliasUpdate"))
			if !strings.Contains(update, "BeforeAllowTrafficHook:map[Ref:PreTrafficFunction]") || !strings.Contains(update, "DeploymentGroupName:map[Ref:"+fn+"DeploymentGroup]") {
				t.Errorf("%s's alias update policy %s: want its deployment group and the PreTraffic hook", fn, update)
			}
			dg := cfn.Map("Resources", fn+"DeploymentGroup", "Properties")
			if dg == nil {
				t.Errorf("%s has no deployment group", fn)
				continue
			}
			if got := fmt.Sprint(cfn.Get("Resources", fn+"DeploymentGroup", "Properties", "AlarmConfiguration", "Alarms")); got != want {
				t.Errorf("%s rolls back on %s, want %s", fn, got, want)
			}
			if rb := fmt.Sprint(dg["AutoRollbackConfiguration"]); !strings.Contains(rb, "DEPLOYMENT_STOP_ON_ALARM") || !strings.Contains(rb, "Enabled:true") {
				t.Errorf("%s rollback %s, want it on alarms", fn, rb)
			}
			if cfg := fmt.Sprint(dg["DeploymentConfigName"]); !strings.Contains(cfg, "CodeDeployDefault.Lambda${ConfigName}") || !strings.Contains(cfg, "Canary10Percent5Minutes") {
				t.Errorf("%s deployment config %s, want the DeploymentType parameter (default Canary10Percent5Minutes)", fn, cfg)
			}
		}
		hook := cfn.Map("Resources", "PreTrafficFunction", "Properties")
		if name := fmt.Sprint(hook["FunctionName"]); name != "map[Fn::Sub:CodeDeployHook_${AWS::StackName}_pretraffic]" {
			t.Errorf("the hook's name %s, want CodeDeployHook_ with the stack name (AWSCodeDeployRoleForLambda invokes only CodeDeployHook_*)", name)
		}
		if cfn.Map("Resources", "PreTrafficFunctionDeploymentGroup") != nil {
			t.Error("the hook itself is deployed gradually; want DeploymentPreference Enabled: false")
		}
		env := fmt.Sprint(cfn.Get("Resources", "PreTrafficFunction", "Properties", "Environment", "Variables"))
		for _, v := range []string{"CREATEPLANT_VERSION:map[Ref:CreatePlantFunctionVersion", "AUTHORIZER_VERSION:map[Ref:AuthorizerFunctionVersion"} {
			if !strings.Contains(env, v) {
				t.Errorf("the hook's environment %s lacks %s...", env, v)
			}
		}
		if groups := cfn.Resources("AWS::CodeDeploy::DeploymentGroup"); len(groups) != 2 {
			t.Errorf("deployment groups %v, want one per served function", groups)
		}
	})

	// docs/design.md, "The edge": each feature by a parameter, off by default.
	t.Run("edge", func(t *testing.T) {
		for id, cond := range map[string]string{"WebAcl": "WafOn", "WebAclAssociation": "WafOn", "CustomDomain": "HasDomain", "CustomDomainMapping": "HasDomain", "CustomDomainRecord": "HasDomainRecord"} {
			if got := cfn.Get("Resources", id, "Condition"); got != cond {
				t.Errorf("%s: Condition %v, want %s", id, got, cond)
			}
		}
		for p, def := range map[string]string{"EnableWaf": "false", "DomainName": "", "CreatePlantReservedConcurrency": "0"} {
			if got := fmt.Sprint(cfn.Get("Parameters", p, "Default")); got != def {
				t.Errorf("parameter %s defaults to %q, want %q (off)", p, got, def)
			}
		}
		assoc := fmt.Sprint(cfn.Get("Resources", "WebAclAssociation", "Properties", "ResourceArn"))
		if !strings.Contains(assoc, "/restapis/${PlantsApi}/stages/${PlantsApiv1Stage}") {
			t.Errorf("the web ACL is associated with %s, want the stage", assoc)
		}
		rules := fmt.Sprint(cfn.Get("Resources", "WebAcl", "Properties", "Rules"))
		for _, want := range []string{"RateBasedStatement:map[AggregateKeyType:IP Limit:map[Ref:WafRateLimit]]", "Name:AWSManagedRulesCommonRuleSet", "Name:AWSManagedRulesKnownBadInputsRuleSet"} {
			if !strings.Contains(rules, want) {
				t.Errorf("the web ACL's rules lack %s: %s", want, rules)
			}
		}
		dom := cfn.Map("Resources", "CustomDomain", "Properties")
		if dom["SecurityPolicy"] != "TLS_1_2" || fmt.Sprint(dom["EndpointConfiguration"]) != "map[Types:[REGIONAL]]" {
			t.Errorf("custom domain %v, want TLS 1.2, regional", dom)
		}
		if m := cfn.Map("Resources", "CustomDomainMapping", "Properties"); m["BasePath"] != nil || fmt.Sprint(m["Stage"]) != "map[Ref:PlantsApiv1Stage]" {
			t.Errorf("base path mapping %v, want the API's stage at the domain's root", m)
		}
		servers := fmt.Sprint(body["servers"])
		if !strings.Contains(servers, "disableExecuteApiEndpoint:map[Fn::If:[HasDomain true false]]") {
			t.Errorf("servers %s, want the execute-api endpoint disabled with a domain", servers)
		}
		rc := fmt.Sprint(cfn.Get("Resources", "CreatePlantFunction", "Properties", "ReservedConcurrentExecutions"))
		if rc != "map[Fn::If:[ReservesConcurrency map[Ref:CreatePlantReservedConcurrency] map[Ref:AWS::NoValue]]]" {
			t.Errorf("createplant's reserved concurrency %s", rc)
		}
	})

	t.Run("rules refuse an incomplete external issuer", func(t *testing.T) {
		rule := fmt.Sprint(cfn.Get("Rules", "ExternalIssuerIsComplete"))
		for _, p := range []string{"AuthAudience", "AuthJwksUrl"} {
			if !strings.Contains(rule, "Ref:"+p) {
				t.Errorf("rule %s does not assert %s", rule, p)
			}
		}
		if pat := cfn.Get("Parameters", "AuthJwksUrl", "AllowedPattern"); pat != `^(https://\S+)?$` {
			t.Errorf("AuthJwksUrl AllowedPattern = %v, want https only", pat)
		}
	})
}

// documentedActions reads docs/security.md's table "What each function may
// do": the actions granted to each function, sorted.
func documentedActions(t *testing.T) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "## What each function may do\n")
	if !ok {
		t.Fatal(`docs/security.md has no section "What each function may do"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	out := map[string][]string{}
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasSuffix(strings.TrimSpace(cells[1]), "Function") {
			continue
		}
		fn := strings.TrimSpace(cells[1])
		for _, a := range strings.Split(cells[2], ",") {
			out[fn] = append(out[fn], strings.Trim(strings.TrimSpace(a), "`"))
		}
		slices.Sort(out[fn])
	}
	return out
}

// A translation is kept by the template's bytes: the same template is the
// kept answer, an edited one is translated again (never a stale answer),
// and another translator is another folder (toolcache's test).
func TestTranslationsAreKeptByContent(t *testing.T) {
	t.Parallel()
	if _, err := Translate(templatePath); errors.Is(err, ErrNoTranslator) && os.Getenv("CI") != "true" {
		t.Skip(err)
	}
	cache, err := toolcache.Open(t.TempDir(), "sam-translator", []byte("test"))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "template.yaml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(string(raw))
	first, err := translateIn(cache, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cache.Get(toolcache.KeyOf([]byte(translateScript), raw)); !ok {
		t.Fatal("the translation was not kept")
	}
	// The kept answer is what a second call gets: poison it to see.
	key := toolcache.KeyOf([]byte(translateScript), raw)
	if err := cache.Put(key, []byte(`{"kept":true}`)); err != nil {
		t.Fatal(err)
	}
	if again, err := translateIn(cache, path); err != nil || again["kept"] != true {
		t.Fatalf("the same template was translated again: %v", err)
	}
	if first["Resources"] == nil {
		t.Fatal("the first translation has no Resources")
	}
	// An edit is a miss: the new bucket is in the new translation.
	write(strings.Replace(string(raw), "\nResources:\n", "\nResources:\n  KeptBucket:\n    Type: AWS::S3::Bucket\n", 1))
	edited, err := translateIn(cache, path)
	if err != nil {
		t.Fatal(err)
	}
	if edited["kept"] == true {
		t.Fatal("an edited template got the kept answer of the old one")
	}
	if r, _ := edited["Resources"].(map[string]any); r["KeptBucket"] == nil {
		t.Error("the edited template's translation lacks the new resource")
	}
}
