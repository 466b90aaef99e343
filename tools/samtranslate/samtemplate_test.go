package samtranslate

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

const templatePath = "../../template.yaml"

// load reads template.yaml in long form (see Parse).
func load(t *testing.T) map[string]any {
	t.Helper()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	return tpl.Doc
}

// at walks the template: at(tpl, "Resources", "PlantsApi", "Properties").
func at(t *testing.T, v any, path ...string) any {
	t.Helper()
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("%s: not a map at %q", strings.Join(path, "."), p)
		}
		if v, ok = m[p]; !ok {
			t.Fatalf("%s: no %q", strings.Join(path, "."), p)
		}
	}
	return v
}

func TestSAMSchema(t *testing.T) {
	t.Parallel()
	c := jsonschema.NewCompiler()
	c.UseRegexpEngine(ecmaRegexp) // the schema's patterns use look-ahead
	sch, err := c.Compile(filepath.Join("testdata", "sam.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	// Round trip through JSON for the validator's types.
	b, _ := json.Marshal(load(t))
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Errorf("template.yaml does not follow the SAM schema: %v", err)
	}
}

type ecma regexp2.Regexp

func (re *ecma) MatchString(s string) bool {
	ok, err := (*regexp2.Regexp)(re).MatchString(s)
	return err == nil && ok
}

func (re *ecma) String() string { return (*regexp2.Regexp)(re).String() }

func ecmaRegexp(s string) (jsonschema.Regexp, error) {
	re, err := regexp2.Compile(s, regexp2.ECMAScript)
	return (*ecma)(re), err
}

func TestTransformAndStage(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	if tpl["Transform"] != "AWS::Serverless-2016-10-31" {
		t.Errorf("Transform = %v", tpl["Transform"])
	}
	api := at(t, tpl, "Resources", "PlantsApi")
	if at(t, api, "Type") != "AWS::Serverless::Api" || at(t, api, "Properties", "StageName") != "v1" {
		t.Errorf("PlantsApi is not a REST API with stage v1")
	}
	// X-Ray tracing of the API and the functions is the preflight's
	// PS-EXP-006, the access log's destination and fields its PS-EXP-008;
	// cfn-lint is make lint's.
	ms := at(t, api, "Properties", "MethodSettings").([]any)[0]
	for _, k := range []string{"ThrottlingRateLimit", "ThrottlingBurstLimit"} {
		if _, ok := ms.(map[string]any)[k]; !ok {
			t.Errorf("stage throttling lacks %s", k)
		}
	}
	// Access logs only when the parameter says the account has (or gets) its role.
	choice, _ := at(t, api, "Properties", "AccessLogSetting", "Fn::If").([]any)
	if len(choice) != 3 || choice[0] != "AccessLogsOn" || fmt.Sprint(choice[2]) != "map[Ref:AWS::NoValue]" {
		t.Fatalf("AccessLogSetting = %v, want !If [AccessLogsOn, {...}, !Ref AWS::NoValue]", choice)
	}
	format := at(t, choice[1], "Format").(string)
	if !json.Valid([]byte(strings.NewReplacer("$context.", "").Replace(format))) {
		t.Errorf("access log format is not JSON: %s", format)
	}
	// ApiUrl is the custom domain when there is one, else the stage's execute-api URL.
	if got := fmt.Sprint(at(t, tpl, "Outputs", "ApiUrl", "Value")); got != "map[Fn::If:[HasDomain map[Fn::Sub:https://${DomainName}] map[Fn::Sub:https://${PlantsApi}.execute-api.${AWS::Region}.${AWS::URLSuffix}/v1]]]" {
		t.Errorf("ApiUrl = %v", got)
	}
}

func TestAuthorizerGuardsTheRoute(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	auth := at(t, tpl, "Resources", "PlantsApi", "Properties", "Auth").(map[string]any)
	name := auth["DefaultAuthorizer"].(string)
	a := at(t, auth, "Authorizers", name)
	if got := at(t, a, "FunctionArn"); fmt.Sprint(got) != fmt.Sprint(map[string]any{"Ref": "AuthorizerFunction.Alias"}) {
		t.Errorf("default authorizer runs %v, want AuthorizerFunction's alias (!Ref AuthorizerFunction.Alias), never $LATEST", got)
	}
	if at(t, a, "FunctionPayloadType") != "TOKEN" || at(t, a, "Identity", "Header") != "Authorization" || at(t, a, "Identity", "ReauthorizeEvery") != 300 {
		t.Errorf("authorizer %v: want TOKEN on Authorization, cached 300 s", a)
	}
	re := regexp.MustCompile(at(t, a, "Identity", "ValidationExpression").(string))
	for header, want := range map[string]bool{
		"Bearer aaa.bbb.ccc": true, "bearer aaa.bbb.ccc": true, "BEARER a-_.b_-.c=": true,
		"Basic dXNlcjpwYXNz": false, "Bearer": false, "Bearer aaa": false, "aaa.bbb.ccc": false,
	} {
		if re.MatchString(header) != want {
			t.Errorf("ValidationExpression on %q = %v, want %v", header, !want, want)
		}
	}
	ev := at(t, tpl, "Resources", "CreatePlantFunction", "Properties", "Events", "CreatePlant", "Properties").(map[string]any)
	if ev["Path"] != "/plants" || ev["Method"] != "post" || fmt.Sprint(ev["RestApiId"]) != fmt.Sprint(map[string]any{"Ref": "PlantsApi"}) {
		t.Errorf("route %v, want POST /plants on PlantsApi", ev)
	}
	if _, ok := ev["Auth"]; ok {
		t.Errorf("the route overrides the default authorizer: %v", ev["Auth"])
	}
}

func TestGatewayResponsesAreErrors(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	grs := at(t, tpl, "Resources", "PlantsApi", "Properties", "GatewayResponses").(map[string]any)
	errSchema := apitest.Doc(t).Components.Schemas["Error"].Value
	want := map[string]struct {
		status string
		code   int
	}{
		"UNAUTHORIZED":                 {"401", httpapi.CodeUnauthorized},
		"ACCESS_DENIED":                {"403", httpapi.CodeForbidden},
		"MISSING_AUTHENTICATION_TOKEN": {"404", httpapi.CodeNotFound},
		"THROTTLED":                    {"429", 42900},
		"REQUEST_TOO_LARGE":            {"400", httpapi.CodeTooLarge},
		"DEFAULT_4XX":                  {"", 40000},
		"DEFAULT_5XX":                  {"", httpapi.CodeInternal},
	}
	for name, w := range want {
		gr, ok := grs[name].(map[string]any)
		if !ok {
			t.Errorf("no gateway response %s", name)
			continue
		}
		if got, _ := gr["StatusCode"].(string); got != w.status {
			t.Errorf("%s: StatusCode %q, want %q", name, got, w.status)
		}
		body := at(t, gr, "ResponseTemplates", "application/json").(string)
		var v map[string]any
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Errorf("%s: body %s is not JSON", name, body)
			continue
		}
		if err := errSchema.VisitJSON(v); err != nil || v["error"] != float64(w.code) {
			t.Errorf("%s: body %s, want an Error with code %d (%v)", name, body, w.code, err)
		}
		headers := at(t, gr, "ResponseParameters", "Headers").(map[string]any)
		if headers["Cache-Control"] != "'no-store'" || headers["X-Content-Type-Options"] != "'nosniff'" {
			t.Errorf("%s: headers %v", name, headers)
		}
	}
	if h := at(t, grs, "UNAUTHORIZED", "ResponseParameters", "Headers", "WWW-Authenticate"); h != "'Bearer'" {
		t.Errorf("401 WWW-Authenticate = %v", h)
	}
}

func TestFunctions(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	globals := at(t, tpl, "Globals", "Function").(map[string]any)
	if globals["Runtime"] != "provided.al2023" || fmt.Sprint(globals["Architectures"]) != "[arm64]" || globals["Handler"] != "bootstrap" {
		t.Errorf("Globals.Function = %v", globals)
	}
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction"} {
		r := at(t, tpl, "Resources", fn).(map[string]any)
		if at(t, r, "Metadata", "BuildMethod") != "makefile" {
			t.Errorf("%s is not built by the Makefile", fn)
		}
		p := r["Properties"].(map[string]any)
		for _, k := range []string{"Runtime", "Architectures", "Handler"} {
			if _, ok := p[k]; ok {
				t.Errorf("%s overrides Globals.%s", fn, k)
			}
		}
		// Tracing (PS-EXP-006) is set per function, not in Globals: the hook
		// has no X-Ray permission, and Lambda refuses Active tracing without it.
		if _, ok := globals["Tracing"]; ok || p["AutoPublishAliasAllProperties"] != true {
			t.Errorf("%s: Globals.Tracing = %v, AutoPublishAliasAllProperties = %v; want no Globals.Tracing and true", fn, globals["Tracing"], p["AutoPublishAliasAllProperties"])
		}
		if to, _ := p["Timeout"].(int); to < 1 || to > 10 {
			t.Errorf("%s Timeout = %v, want a short one", fn, p["Timeout"])
		}
		if at(t, p, "LoggingConfig", "LogFormat") != "JSON" {
			t.Errorf("%s does not log JSON", fn)
		}
		// Its log group's retention is the preflight's PS-EXP-005.
	}
	if _, ok := at(t, tpl, "Resources", "AuthorizerFunction", "Properties").(map[string]any)["Policies"]; ok {
		t.Error("the authorizer has policies; it needs no data access")
	}
}

// Each function names a role of its own, so that SAM makes none (and attaches
// no managed policy); what the roles grant is checked on the translated
// template (TestTranslated/IAM), which needs the SAM translator.
func TestLeastPrivilege(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	for fn, role := range map[string]string{"CreatePlantFunction": "CreatePlantRole", "AuthorizerFunction": "AuthorizerRole"} {
		p := at(t, tpl, "Resources", fn, "Properties").(map[string]any)
		if got := fmt.Sprint(p["Role"]); got != fmt.Sprint(map[string]any{"Fn::GetAtt": role + ".Arn"}) && got != fmt.Sprint(map[string]any{"Fn::GetAtt": []any{role, "Arn"}}) {
			t.Errorf("%s Role = %s, want !GetAtt %s.Arn", fn, got, role)
		}
		for _, k := range []string{"Policies"} {
			if _, ok := p[k]; ok {
				t.Errorf("%s has %s; its role carries its grants", fn, k)
			}
		}
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	tbl := at(t, tpl, "Resources", "PlantsTable").(map[string]any)
	if tbl["Type"] != "AWS::DynamoDB::Table" || tbl["DeletionPolicy"] != "RetainExceptOnCreate" || tbl["UpdateReplacePolicy"] != "Retain" {
		t.Errorf("PlantsTable %v: want a DynamoDB table retained on delete and replace, deleted when its first create rolls back", tbl["Type"])
	}
	p := tbl["Properties"].(map[string]any)
	if p["BillingMode"] != "PAY_PER_REQUEST" {
		t.Error("the table is not on demand")
	}
	if fmt.Sprint(p["KeySchema"]) != "[map[AttributeName:id KeyType:HASH]]" || fmt.Sprint(p["AttributeDefinitions"]) != "[map[AttributeName:id AttributeType:N]]" {
		t.Errorf("keys %v %v, want partition key id (N)", p["KeySchema"], p["AttributeDefinitions"])
	}
	if at(t, p, "PointInTimeRecoverySpecification", "PointInTimeRecoveryEnabled") != true || at(t, p, "SSESpecification", "SSEEnabled") != true {
		t.Error("point-in-time recovery or encryption at rest is off")
	}
}

func TestCognitoWhenNoIssuer(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	for _, r := range []string{"UserPool", "UserPoolResourceServer", "UserPoolDomain", "UserPoolClient"} {
		if at(t, tpl, "Resources", r, "Condition") != "UseCognito" {
			t.Errorf("%s is not conditional on UseCognito", r)
		}
	}
	client := at(t, tpl, "Resources", "UserPoolClient", "Properties")
	if fmt.Sprint(at(t, client, "AllowedOAuthFlows")) != "[client_credentials]" || fmt.Sprint(at(t, client, "AllowedOAuthScopes")) != "[plants/write]" {
		t.Errorf("app client %v", client)
	}
	env := at(t, tpl, "Resources", "AuthorizerFunction", "Properties", "Environment", "Variables").(map[string]any)
	for _, k := range []string{"AUTH_ISSUER", "AUTH_AUDIENCE", "AUTH_JWKS_URL", "AUTH_REQUIRED_SCOPE"} {
		if _, ok := env[k].(map[string]any)["Fn::If"]; !ok {
			t.Errorf("%s does not choose between Cognito and the parameters", k)
		}
	}
	for _, o := range []string{"TokenEndpoint", "ClientId", "TableName", "ApiUrl"} {
		at(t, tpl, "Outputs", o)
	}

	// The PreTraffic hook is told what the authorizer is told, and obtains
	// its token from the app client whose id is the authorizer's audience:
	// Cognito's access tokens carry client_id and no aud, so a token of any
	// other client would be refused and fail every release.
	hook := at(t, tpl, "Resources", "PreTrafficFunction", "Properties", "Environment", "Variables").(map[string]any)
	for _, k := range []string{"AUTH_ISSUER", "AUTH_AUDIENCE", "AUTH_REQUIRED_SCOPE"} {
		if fmt.Sprint(hook[k]) != fmt.Sprint(env[k]) {
			t.Errorf("the hook's %s = %v, want the authorizer's %v", k, hook[k], env[k])
		}
	}
	audience := fmt.Sprint(at(t, env, "AUTH_AUDIENCE", "Fn::If").([]any)[1])
	for k, want := range map[string]string{
		"COGNITO_CLIENT_ID":      "map[Fn::If:[UseCognito " + audience + " ]]",
		"COGNITO_USER_POOL_ID":   "map[Fn::If:[UseCognito map[Ref:UserPool] ]]",
		"COGNITO_TOKEN_ENDPOINT": "map[Fn::If:[UseCognito " + fmt.Sprint(at(t, tpl, "Outputs", "TokenEndpoint", "Value")) + " ]]",
	} {
		if got := fmt.Sprint(hook[k]); got != want {
			t.Errorf("the hook's %s = %s, want %s (empty with another issuer)", k, got, want)
		}
	}
}

func TestAlarms(t *testing.T) {
	t.Parallel()
	tpl := load(t)
	seen := map[string]bool{}
	for _, r := range at(t, tpl, "Resources").(map[string]any) {
		r := r.(map[string]any)
		if r["Type"] == "AWS::CloudWatch::Alarm" {
			p := r["Properties"].(map[string]any)
			metrics := []map[string]any{p} // a plain alarm, or each metric of a math alarm
			for _, m := range asSlice(p["Metrics"]) {
				if ms, ok := m.(map[string]any)["MetricStat"].(map[string]any); ok {
					metrics = append(metrics, ms["Metric"].(map[string]any))
				}
			}
			for _, m := range metrics {
				name, ok := m["MetricName"].(string)
				if !ok {
					continue
				}
				ns, ok := m["Namespace"].(string)
				if !ok {
					ns = "custom"
				}
				var dims []string
				for _, d := range asSlice(m["Dimensions"]) {
					dims = append(dims, fmt.Sprint(d.(map[string]any)["Value"]))
				}
				seen[ns+"/"+name+fmt.Sprint(dims)] = true
			}
		}
	}
	for _, m := range []string{
		"AWS/ApiGateway/5XXError[map[Fn::Sub:${AWS::StackName}-plants] v1]",                        // AUTHORIZER_FAILURE and every other 5xx
		"AWS/Lambda/Errors[map[Ref:CreatePlantFunction]]",                                          // createplant answers every failure itself
		"AWS/Lambda/Errors[map[Ref:CreatePlantFunction] map[Fn::Sub:${CreatePlantFunction}:live]]", // its alias: rolls a deployment back
		"AWS/Lambda/Throttles[map[Ref:CreatePlantFunction]]",                                       //
		"AWS/Lambda/Throttles[map[Ref:AuthorizerFunction]]",                                        //
		"custom/AuthorizerErrorLogs[]",                                                             // the authorizer's ERROR log lines
		"AWS/DynamoDB/SystemErrors[map[Ref:PlantsTable] PutItem]",                                  //
	} {
		if !seen[m] {
			t.Errorf("no alarm on %s (alarms: %v)", m, seen)
		}
	}
	// The stage's Count holds every anonymous 401, 404 and 429: a share of it
	// is diluted by strangers' junk (issue: a canary failing 10 % falls under
	// 0.05), so no alarm divides by it.
	if seen["AWS/ApiGateway/Count[map[Fn::Sub:${AWS::StackName}-plants] v1]"] {
		t.Error("an alarm reads the stage's Count, which anonymous 4xx traffic inflates")
	}
	// "Unauthorized" is how the authorizer refuses a token, and Lambda counts
	// it in Errors: an alarm there fires on every bad token.
	if seen["AWS/Lambda/Errors[map[Ref:AuthorizerFunction]]"] {
		t.Error("an alarm watches the authorizer's Errors, which every refused token raises")
	}
}

func asSlice(v any) []any { s, _ := v.([]any); return s }
