package samtemplate

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// apis reads a template's APIs, failing t on an error.
func apis(t *testing.T, raw string) ([]*API, []string) {
	t.Helper()
	tpl, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	a, notes, err := tpl.APIs()
	if err != nil {
		t.Fatal(err)
	}
	return a, notes
}

// routeTable is "API METHOD PATH FUNCTION" per route, with ANY's lost
// methods after "-".
func routeTable(apis []*API) []string {
	var out []string
	for _, a := range apis {
		for _, r := range a.Routes {
			s := fmt.Sprintf("%s %s %s %s", a.ID, r.Method, r.Path, r.Function)
			if len(r.Except) > 0 {
				s += " -" + strings.Join(r.Except, ",")
			}
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return out
}

const goGlobals = `
Globals:
  Function:
    Runtime: provided.al2023
    Handler: bootstrap
`

// SAM CLI's precedence when two APIs declare one route, as its unit tests
// hold it (tests/unit/commands/local/lib/test_sam_api_provider.py,
// TestSamApiProviderWithExplicitAndImplicitApis): an implicit API's route
// wins over an explicit one's, an ANY takes every method, and the loser
// keeps the methods the winner does not take.
func TestPrecedenceFollowsSAMCLI(t *testing.T) {
	t.Parallel()
	swagger := func(routes ...string) string {
		var b strings.Builder
		b.WriteString("        swagger: '2.0'\n        paths:\n")
		for _, r := range routes {
			path, method, _ := strings.Cut(r, " ")
			fmt.Fprintf(&b, "          %s:\n            %s:\n              x-amazon-apigateway-integration:\n                type: aws_proxy\n                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${ExplicitFunc.Arn}/invocations\n", path, method)
		}
		return b.String()
	}
	template := func(explicit, events string) string {
		return goGlobals + `
Resources:
  Api1:
    Type: AWS::Serverless::Api
    Properties:
      StageName: Prod
      DefinitionBody:
` + explicit + `
  ExplicitFunc:
    Type: AWS::Serverless::Function
  ImplicitFunc:
    Type: AWS::Serverless::Function
    Properties:
      Events:
` + events
	}
	event := func(name, path, method string) string {
		return fmt.Sprintf("        %s:\n          Type: Api\n          Properties: {Path: %s, Method: %s}\n", name, path, method)
	}
	for _, tc := range []struct {
		name, explicit, events string
		want                   []string
	}{
		{
			"test_must_union_implicit_and_explicit",
			swagger("/path1 get", "/path2 get", "/path3 get"),
			event("Event1", "/path1", "POST") + event("Event2", "/path2", "POST") + event("Event3", "/path3", "POST"),
			[]string{
				"Api1 GET /path1 ExplicitFunc", "Api1 GET /path2 ExplicitFunc", "Api1 GET /path3 ExplicitFunc",
				"ServerlessRestApi POST /path1 ImplicitFunc", "ServerlessRestApi POST /path2 ImplicitFunc", "ServerlessRestApi POST /path3 ImplicitFunc",
			},
		},
		{
			"test_must_prefer_implicit_api_over_explicit",
			swagger("/path1 get", "/path2 get", "/path3 get"),
			event("Event1", "/path1", "get") + event("Event2", "/path2", "POST"),
			[]string{
				"Api1 GET /path2 ExplicitFunc", "Api1 GET /path3 ExplicitFunc",
				"ServerlessRestApi GET /path1 ImplicitFunc", "ServerlessRestApi POST /path2 ImplicitFunc",
			},
		},
		{
			"test_must_prefer_implicit_with_any_method",
			swagger("/path get", "/path delete"),
			event("Event1", "/path", "ANY"),
			[]string{"ServerlessRestApi ANY /path ImplicitFunc"},
		},
		{
			"test_with_any_method_on_both",
			swagger("/path x-amazon-apigateway-any-method", "/path2 post"),
			event("Event1", "/path", "ANY") + event("Event2", "/path2", "GET"),
			[]string{"Api1 POST /path2 ExplicitFunc", "ServerlessRestApi ANY /path ImplicitFunc", "ServerlessRestApi GET /path2 ImplicitFunc"},
		},
		{
			// An implicit route that overrides some methods of an explicit
			// ANY: SAM CLI's answer for GET depends on Python's hash seed;
			// here the implicit route takes GET and the ANY the rest.
			"partial ANY override",
			swagger("/path x-amazon-apigateway-any-method"),
			event("Event1", "/path", "GET"),
			[]string{"Api1 ANY /path ExplicitFunc -GET", "ServerlessRestApi GET /path ImplicitFunc"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, notes := apis(t, template(tc.explicit, tc.events))
			if got := routeTable(a); !slices.Equal(got, tc.want) {
				t.Errorf("routes\n%s\nwant\n%s\nnotes: %q", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), notes)
			}
		})
	}
}

// Two explicit APIs with one route: the API the template mentions later
// wins, and the loser's route is said at start.
func TestTheLaterExplicitAPIWins(t *testing.T) {
	t.Parallel()
	a, notes := apis(t, goGlobals+`
Resources:
  Api1:
    Type: AWS::Serverless::Api
    Properties: {StageName: one}
  Api2:
    Type: AWS::Serverless::Api
    Properties: {StageName: two}
  Fn2:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: Api, Properties: {RestApiId: !Ref Api2, Path: /x, Method: get}}
  Fn1:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: Api, Properties: {RestApiId: !Ref Api1, Path: /x, Method: get}}
`)
	if got := routeTable(a); !slices.Equal(got, []string{"Api2 GET /x Fn2"}) {
		t.Errorf("routes %q, want Api2's (defined after Api1)", got)
	}
	if !slices.ContainsFunc(notes, func(n string) bool {
		return strings.Contains(n, "Api1: GET /x is not served by Api1: Api2 declares it too")
	}) {
		t.Errorf("notes %q, want the overridden route said", notes)
	}
}

// Every kind of API of a template is read: HttpApi events (the implicit
// ServerlessHttpApi and its $default route), an HttpApi with an OpenAPI
// body, the CloudFormation resources of both kinds, and the routes of
// each keep their payload versions.
func TestEveryKindOfAPIIsRead(t *testing.T) {
	t.Parallel()
	a, notes := apis(t, goGlobals+`
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      FunctionName: custom-name
      Events:
        Rest: {Type: Api, Properties: {Path: '/rest/{id}', Method: get}}
        Http: {Type: HttpApi, Properties: {Path: '/http/{proxy+}', Method: any}}
        Http1: {Type: HttpApi, Properties: {Path: /v1, Method: get, PayloadFormatVersion: "1.0"}}
        Default: {Type: HttpApi}
  Body:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: dev-http
      StageVariables: {VarName: varValue}
      DefinitionBody:
        openapi: '3.0'
        paths:
          /body:
            get:
              operationId: Op
              x-amazon-apigateway-integration:
                type: AWS_PROXY
                payloadFormatVersion: '1.0'
                uri: arn:aws:apigateway:us-east-1:lambda:path/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:custom-name/invocations
  Rest:
    Type: AWS::ApiGateway::RestApi
  Stage:
    Type: AWS::ApiGateway::Stage
    Properties: {RestApiId: !Ref Rest, StageName: Dev, Variables: {Stack: Dev}}
  Root:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref Rest, ParentId: !GetAtt Rest.RootResourceId, PathPart: root}
  Greedy:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref Rest, ParentId: !Ref Root, PathPart: '{proxy+}'}
  Method:
    Type: AWS::ApiGateway::Method
    Properties:
      RestApiId: !Ref Rest
      ResourceId: !Ref Greedy
      HttpMethod: ANY
      Integration: {Type: AWS_PROXY, IntegrationHttpMethod: POST, Uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${Fn.Arn}/invocations'}
  V2:
    Type: AWS::ApiGatewayV2::Api
    Properties: {Name: quick, ProtocolType: HTTP, Target: !GetAtt Fn.Arn, RouteKey: 'GET /quick'}
`)
	want := []string{
		"Body GET /body Fn", "Rest ANY /root/{proxy+} Fn", "ServerlessHttpApi ANY $default Fn",
		"ServerlessHttpApi ANY /http/{proxy+} Fn", "ServerlessHttpApi GET /v1 Fn", "ServerlessRestApi GET /rest/{id} Fn", "V2 GET /quick Fn",
	}
	if got := routeTable(a); !slices.Equal(got, want) {
		t.Errorf("routes\n%s\nwant\n%s\nnotes %q", strings.Join(got, "\n"), strings.Join(want, "\n"), notes)
	}
	byID := map[string]*API{}
	for _, x := range a {
		byID[x.ID] = x
	}
	for _, tc := range []struct {
		api, stage string
		http       bool
		version    string
	}{
		{"ServerlessRestApi", "Prod", false, "1.0"}, {"Body", "dev-http", true, "1.0"},
		{"Rest", "Dev", false, "1.0"}, {"V2", "$default", true, "2.0"},
	} {
		x := byID[tc.api]
		if x == nil || x.StageName() != tc.stage || x.HTTP != tc.http || x.Routes[0].PayloadVersion != tc.version {
			t.Errorf("%s: %+v, want stage %s, HTTP %v, payload %s", tc.api, x, tc.stage, tc.http, tc.version)
		}
	}
	if byID["Body"].Variables["VarName"] != "varValue" || byID["Rest"].Variables["Stack"] != "Dev" {
		t.Errorf("stage variables %v %v", byID["Body"].Variables, byID["Rest"].Variables)
	}
	if byID["Body"].Routes[0].OperationName != "" {
		t.Errorf("an HTTP API's operationId reached the route: %q (SAM CLI leaves it out)", byID["Body"].Routes[0].OperationName)
	}
}

// What the template holds that start-api does not serve is one line each,
// never silence (issue 46's rule, and 47's "never a silent 404").
func TestUnservedAPIPartsAreSaid(t *testing.T) {
	t.Parallel()
	_, notes := apis(t, goGlobals+`
Resources:
  Py:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: app.handler
      Events:
        Get: {Type: Api, Properties: {Path: /py, Method: get}}
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Key: {Type: Api, Properties: {Path: /key, Method: get, Auth: {ApiKeyRequired: true}}}
        Iam: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /iam, Method: get, Auth: {Authorizer: AWS_IAM}}}
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Auth:
        Authorizers:
          Pool: {UserPoolArn: arn:aws:cognito-idp:us-east-1:123456789012:userpool/x}
      DefinitionBody:
        swagger: '2.0'
        paths:
          /mock:
            get:
              x-amazon-apigateway-integration: {type: mock}
          /nofunction:
            get:
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${WhatFunction.Arn}/invocations
  S3Api:
    Type: AWS::Serverless::Api
    Properties: {StageName: v1, DefinitionUri: s3://bucket/openapi.yaml}
  Ws:
    Type: AWS::ApiGatewayV2::Api
    Properties: {ProtocolType: WEBSOCKET}
  Child:
    Type: AWS::Serverless::Application
    Properties: {Location: ./child.yaml}
`)
	for _, want := range []string{
		"ServerlessRestApi: GET /py (Py event Get) is not served: its function Py is not one samlocal runs",
		"Fn: Api event Key: ApiKeyRequired is not served",
		"Api: GET /iam: the AWS_IAM authorizer is not served",
		"Api: authorizer Pool (a Cognito user pool) is not served",
		`Api: GET /mock (DefinitionBody): integration type "mock" is not served`,
		`Api: GET /nofunction (DefinitionBody) is not served: it names "WhatFunction", which is no function of the template; it answers 502`,
		"S3Api: DefinitionUri s3://bucket/openapi.yaml is in S3 and not served",
		"Ws: a WebSocket API is not served",
	} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, want) }) {
			t.Errorf("no line %q among\n%s", want, strings.Join(notes, "\n"))
		}
	}
}

// SAM CLI's refusals of a template, with its messages
// (tests/integration/local/start_api/lambda_authorizers: the
// TestInvalid* classes; samcli/lib/providers/cfn_base_api_provider.py for
// CORS): start-api stops before anything runs.
func TestTemplatesSAMCLIRefuses(t *testing.T) {
	t.Parallel()
	httpAuth := func(props string) string {
		return goGlobals + `
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: HttpApi, Properties: {ApiId: !Ref Api, Path: /x, Method: get}}
  Api:
    Type: AWS::Serverless::HttpApi
    Properties:
      Auth:
        DefaultAuthorizer: RequestAuthorizerV2
        Authorizers:
          RequestAuthorizerV2:
            FunctionArn: !GetAtt Fn.Arn
` + props
	}
	restCors := func(cors string) string {
		return goGlobals + `
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: Api, Properties: {Path: /x, Method: get}}
Globals:
  Function: {Runtime: provided.al2023}
  Api:
    Cors: ` + cors + "\n"
	}
	for _, tc := range []struct{ name, template, want string }{
		{"TestUsingSimpleResponseWithV1HttpApi", httpAuth("            AuthorizerPayloadFormatVersion: '1.0'\n            EnableSimpleResponses: true\n"),
			"EnableSimpleResponses must be used with the 2.0 payload format version in Lambda Authorizer 'RequestAuthorizerV2'"},
		{"TestInvalidInvalidVersionHttpApi", httpAuth("            AuthorizerPayloadFormatVersion: '3.0'\n"),
			"Lambda Authorizer 'RequestAuthorizerV2' must contain a valid 'AuthorizerPayloadFormatVersion' for HTTP APIs"},
		{"unquoted Cors string", restCors(`"'*"`), `Cors Properties must be a quoted string (i.e. "'*'" is correct, but "*" is not)`},
		{"unquoted Cors property", restCors("{AllowOrigin: '*'}"), `AllowOrigin must be a quoted string`},
		{"bad CORS method", restCors(`{AllowMethods: "'GET,FETCH'"}`), "the method FETCH is not a valid CORS method"},
		{"TestInvalidSwaggerTemplateInvalidIdentitySources", goGlobals + `
Resources:
  Fn:
    Type: AWS::Serverless::Function
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      DefinitionBody:
        openapi: '3.0'
        components:
          securitySchemes:
            Authorizer:
              type: apiKey
              in: header
              name: Unused
              x-amazon-apigateway-authorizer:
                type: request
                identitySource: a.b.c.d.e
                authorizerUri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${Fn.Arn}/invocations
`, "identity source 'a.b.c.d.e' for Lambda Authorizer 'Authorizer' is not a valid identity source, check the spelling/format"},
		{"RestApiId not a Ref", goGlobals + `
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        E: {Type: Api, Properties: {RestApiId: {"Fn::GetAtt": [X, Y]}, Path: /x, Method: get}}
`, "RestApiId property of resource with logicalId 'Fn' is invalid."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tpl, err := Parse([]byte(tc.template))
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := tpl.APIs(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err %v, want %q", err, tc.want)
			}
		})
	}
}

// An OpenAPI document may come from a local file, by DefinitionUri or an
// AWS::Include transform, relative to the template's folder
// (TestSwaggerIncludedFromSeparateFile).
func TestDefinitionFromAFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := `swagger: '2.0'
paths:
  /anyandall:
    x-amazon-apigateway-any-method:
      x-amazon-apigateway-integration:
        type: aws_proxy
        uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${Fn.Arn}/invocations
`
	if err := os.WriteFile(filepath.Join(dir, "swagger.yaml"), []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, def := range []string{
		"DefinitionUri: ./swagger.yaml",
		"DefinitionBody:\n        Fn::Transform:\n          Name: AWS::Include\n          Parameters: {Location: ./swagger.yaml}",
	} {
		path := filepath.Join(dir, "template.yaml")
		raw := goGlobals + "Resources:\n  Fn:\n    Type: AWS::Serverless::Function\n  Api:\n    Type: AWS::Serverless::Api\n    Properties:\n      StageName: v1\n      " + def + "\n"
		if err := os.WriteFile(path, []byte(raw), 0o600); err != nil {
			t.Fatal(err)
		}
		tpl, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		a, notes, err := tpl.APIs()
		if err != nil {
			t.Fatal(err)
		}
		if got := routeTable(a); !slices.Equal(got, []string{"Api ANY /anyandall Fn"}) {
			t.Errorf("%s: routes %q, notes %q", def, got, notes)
		}
	}
}

// Authorizers of every source become the routes' authorizers: a default
// one, a route's own, Authorizer: NONE, an OpenAPI security requirement,
// and JWT ones with their scopes.
func TestAuthorizersAreLinked(t *testing.T) {
	t.Parallel()
	a, notes := apis(t, goGlobals+`
Resources:
  Auth:
    Type: AWS::Serverless::Function
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Default: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /default, Method: get}}
        Request: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /request, Method: get, Auth: {Authorizer: Req}}}
        Open: {Type: Api, Properties: {RestApiId: !Ref Api, Path: /open, Method: get, Auth: {Authorizer: NONE}}}
        Jwt: {Type: HttpApi, Properties: {ApiId: !Ref Http, Path: /jwt, Method: get, Auth: {Authorizer: Oidc, AuthorizationScopes: [read]}}}
  Api:
    Type: AWS::Serverless::Api
    Properties:
      StageName: v1
      Auth:
        DefaultAuthorizer: Tok
        Authorizers:
          Tok: {FunctionArn: !GetAtt Auth.Arn, Identity: {Header: X-Token, ReauthorizeEvery: 0}}
          Req:
            FunctionArn: !GetAtt Auth.Arn
            FunctionPayloadType: REQUEST
            Identity: {Headers: [header], QueryStrings: [query], StageVariables: [sv], Context: [stage]}
  Http:
    Type: AWS::Serverless::HttpApi
    Properties:
      Auth:
        Authorizers:
          Oidc:
            IdentitySource: $request.header.Authorization
            JwtConfiguration: {issuer: 'https://issuer.example', audience: [shop]}
`)
	got := map[string]*Route{}
	for _, x := range a {
		for i := range x.Routes {
			got[x.Routes[i].Path] = &x.Routes[i]
		}
	}
	if r := got["/default"]; r.Authorizer == nil || r.Authorizer.Name != "Tok" || r.Authorizer.Header != "X-Token" || r.Authorizer.TTL != 0 {
		t.Errorf("/default: %+v, want the TOKEN default on X-Token, no cache", r.Authorizer)
	}
	want := []string{"method.request.header.header", "method.request.querystring.query", "stageVariables.sv", "context.stage"}
	if r := got["/request"]; r.Authorizer == nil || r.Authorizer.Type != "REQUEST" || !slices.Equal(r.Authorizer.IdentitySources, want) || r.Authorizer.TTL != 300 {
		t.Errorf("/request: %+v, want REQUEST on %q with the 300 s cache", r.Authorizer, want)
	}
	if r := got["/open"]; r.Authorizer != nil {
		t.Errorf("/open: %+v, want none (Authorizer: NONE)", r.Authorizer)
	}
	if r := got["/jwt"]; r.Authorizer == nil || r.Authorizer.Type != "JWT" || r.Authorizer.Issuer != "https://issuer.example" || !slices.Equal(r.Scopes, []string{"read"}) {
		t.Errorf("/jwt: %+v scopes %q", r.Authorizer, r.Scopes)
	}
	if len(notes) > 0 {
		t.Errorf("notes %q, want none", notes)
	}
}
