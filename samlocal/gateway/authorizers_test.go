package gateway

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/golang-jwt/jwt/v5"
)

// Authorizers, as SAM CLI's lambda_authorizers integration tests assert
// them (tests/integration/local/start_api/lambda_authorizers/:
// test_sfn_props_lambda_authorizers.py, test_cfn_authorizer_definitions.py,
// test_swagger_authorizer_definitions.py, with app.py's handlers as fakes),
// and JWT authorizers, which SAM CLI skips.

// authorizerFns are lambda_authorizers/app.py's handlers.
type authorizerFns struct {
	mu     sync.Mutex
	events [][]byte // the authorizer's events, in order
}

func (a *authorizerFns) record(p []byte) {
	a.mu.Lock()
	a.events = append(a.events, p)
	a.mu.Unlock()
}

func (a *authorizerFns) last() map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	var ev map[string]any
	if len(a.events) > 0 {
		_ = json.Unmarshal(a.events[len(a.events)-1], &ev)
	}
	return ev
}

// authHandler is app.auth_handler: Allow on every method of the stage, with
// a context.
func (a *authorizerFns) authHandler(p []byte) ([]byte, bool, error) {
	a.record(p)
	var ev struct {
		MethodArn, RouteArn string
	}
	_ = json.Unmarshal(p, &ev)
	arn := ev.MethodArn + ev.RouteArn
	parts := strings.Split(arn, "/")
	b, _ := json.Marshal(map[string]any{
		"principalId": "user|a1b2c3d4",
		"policyDocument": map[string]any{"Version": "2012-10-17", "Statement": []any{
			map[string]any{"Effect": "Allow", "Action": "execute-api:Invoke", "Resource": []string{parts[0] + "/" + parts[1] + "/*/*"}},
		}},
		"context": map[string]any{"number": 1, "bool": true, "passed": "from authorizer"},
	})
	return b, false, nil
}

func (a *authorizerFns) simpleHandler(p []byte) ([]byte, bool, error) {
	a.record(p)
	return []byte(`{"isAuthorized":true,"context":{"number":1,"bool":true,"passed":"from authorizer"}}`), false, nil
}

// unauth is app.unauth: a Deny of every method.
func unauth([]byte) ([]byte, bool, error) {
	return []byte(`{"principalId":"user|a1b2c3d4","policyDocument":{"Version":"2012-10-17","Statement":[{"Effect":"Deny","Action":"execute-api:Invoke","Resource":["arn:aws:execute-api:*:*:*/*/*/*"]}]}}`), false, nil
}

func unauthV2([]byte) ([]byte, bool, error) {
	return []byte(`{"isAuthorized":false,"context":{"number":1}}`), false, nil
}

func throwsException([]byte) ([]byte, bool, error) {
	return []byte(`{"errorMessage":"","errorType":"Exception"}`), true, nil
}

// passedBack is app.lambda_handler: the authorizer context's "passed", flat
// (payload 1.0) or under "lambda" (2.0).
func passedBack(p []byte) ([]byte, bool, error) {
	var ev struct {
		RequestContext struct {
			Authorizer map[string]any `json:"authorizer"`
		} `json:"requestContext"`
	}
	_ = json.Unmarshal(p, &ev)
	msg := ev.RequestContext.Authorizer["passed"]
	if msg == nil {
		lambda, _ := ev.RequestContext.Authorizer["lambda"].(map[string]any)
		msg = lambda["passed"]
	}
	body, _ := json.Marshal(map[string]any{"message": msg})
	b, _ := json.Marshal(map[string]any{"statusCode": 200, "body": string(body)})
	return b, false, nil
}

const restAuthorizers = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  TestServerlessRestApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: api
      Variables: {sv: stage-value}
      Auth:
        DefaultAuthorizer: Token
        Authorizers:
          Token:
            FunctionArn: !GetAtt AuthorizerFunction.Arn
            FunctionPayloadType: TOKEN
            Identity: {Header: header, ReauthorizeEvery: 0}
          Request:
            FunctionArn: !GetAtt AuthorizerFunction.Arn
            FunctionPayloadType: REQUEST
            Identity: {Headers: [header], QueryStrings: [query], StageVariables: [sv], Context: [identity.sourceIp]}
  HelloWorldFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Token: {Type: Api, Properties: {RestApiId: !Ref TestServerlessRestApi, Path: /requestauthorizertoken, Method: get}}
        Request: {Type: Api, Properties: {RestApiId: !Ref TestServerlessRestApi, Path: '/requestauthorizerrequest/{id}', Method: get, Auth: {Authorizer: Request}}}
        Open: {Type: Api, Properties: {RestApiId: !Ref TestServerlessRestApi, Path: /open, Method: get, Auth: {Authorizer: NONE}}}
  AuthorizerFunction:
    Type: AWS::Serverless::Function
`

// test_sfn_props_lambda_authorizers.py: TestSfnPropertiesLambdaAuthorizers
// (AuthOverride Token and Request), ...Unauthorized, ...500, on a REST
// API (serverless-api-props.yaml).
func TestSAMCLIRestLambdaAuthorizers(t *testing.T) {
	t.Parallel()
	valid := map[string]string{"header": "myheader"}
	for _, tc := range []struct {
		name       string
		authorizer func(*authorizerFns) func([]byte) ([]byte, bool, error)
		call       call
		want       expect
	}{
		{"TestSfnPropertiesLambdaAuthorizers/test_invokes_authorizer (Token)", (*authorizerFns).handler, call{path: "/requestauthorizertoken", header: valid},
			expect{status: 200, json: `{"message":"from authorizer"}`}},
		{"TestSfnPropertiesLambdaAuthorizers/test_missing_identity_sources (Token)", (*authorizerFns).handler, call{path: "/requestauthorizertoken"},
			expect{status: 401, json: `{"message":"Unauthorized"}`}},
		{"TestSfnPropertiesLambdaAuthorizers/test_invokes_authorizer (Request)", (*authorizerFns).handler, call{path: "/requestauthorizerrequest/7?query=myquery", header: valid},
			expect{status: 200, json: `{"message":"from authorizer"}`}},
		{"TestSfnPropertiesLambdaAuthorizers/test_missing_identity_sources (Request)", (*authorizerFns).handler, call{path: "/requestauthorizerrequest/7?query=", header: valid},
			expect{status: 401, json: `{"message":"Unauthorized"}`}},
		{"TestSfnPropertiesLambdaAuthorizersUnauthorized/test_unauthorized_request", func(*authorizerFns) func([]byte) ([]byte, bool, error) { return unauth },
			call{path: "/requestauthorizertoken", header: valid}, expect{status: 403, json: `{"message":"User is not authorized to access this resource"}`}},
		// SAM CLI answers an authorizer that throws with 502; API Gateway
		// with the AUTHORIZER_FAILURE gateway response, 500.
		{"TestSfnPropertiesLambdaAuthorizer500/test_unauthorized_request", func(*authorizerFns) func([]byte) ([]byte, bool, error) { return throwsException },
			call{path: "/requestauthorizertoken", header: valid}, expect{status: 500}},
		{"Authorizer: NONE runs no authorizer", (*authorizerFns).handler, call{path: "/open"}, expect{status: 200, json: `{"message":null}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fns := &authorizerFns{}
			g, l := serveTemplate(t, restAuthorizers, map[string]func([]byte) ([]byte, bool, error){
				"AuthorizerFunction": tc.authorizer(fns), "HelloWorldFunction": passedBack,
			})
			tc.want.check(t, tc.call.do(g))
			if tc.want.status == 401 && l.Count("AuthorizerFunction") != 0 {
				t.Error("the authorizer ran for a request without its identity")
			}
		})
	}
	t.Run("the REQUEST authorizer's event", func(t *testing.T) {
		t.Parallel()
		fns := &authorizerFns{}
		g, _ := serveTemplate(t, restAuthorizers, map[string]func([]byte) ([]byte, bool, error){"AuthorizerFunction": fns.authHandler, "HelloWorldFunction": passedBack})
		call{path: "/requestauthorizerrequest/7?query=myquery", header: map[string]string{"header": "myheader"}}.do(g)
		var ev events.APIGatewayCustomAuthorizerRequestTypeRequest
		raw, _ := json.Marshal(fns.last())
		if err := json.Unmarshal(raw, &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Type != "REQUEST" || ev.MethodArn != "arn:aws:execute-api:us-east-1:123456789012:local/api/GET/requestauthorizerrequest/7" ||
			ev.PathParameters["id"] != "7" || ev.QueryStringParameters["query"] != "myquery" || ev.Headers["Header"] != "myheader" ||
			ev.StageVariables["sv"] != "stage-value" || ev.Resource != "/requestauthorizerrequest/{id}" || ev.RequestContext.Stage != "api" {
			t.Errorf("event %+v", ev)
		}
	})
	t.Run("the TOKEN authorizer's event", func(t *testing.T) {
		t.Parallel()
		fns := &authorizerFns{}
		g, _ := serveTemplate(t, restAuthorizers, map[string]func([]byte) ([]byte, bool, error){"AuthorizerFunction": fns.authHandler, "HelloWorldFunction": passedBack})
		call{path: "/requestauthorizertoken", header: map[string]string{"header": "myheader"}}.do(g)
		if got := fns.last(); !jsonEqual(mustJSON(got), `{"type":"TOKEN","authorizationToken":"myheader","methodArn":"arn:aws:execute-api:us-east-1:123456789012:local/api/GET/requestauthorizertoken"}`) {
			t.Errorf("event %v", got)
		}
	})
}

// handler is authHandler as a method value.
func (a *authorizerFns) handler() func([]byte) ([]byte, bool, error) { return a.authHandler }

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

const httpAuthorizers = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  TestServerlessHttpApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: http
      Auth:
        DefaultAuthorizer: RequestAuthorizerV2
        Authorizers:
          RequestAuthorizerV2:
            AuthorizerPayloadFormatVersion: "2.0"
            EnableSimpleResponses: false
            FunctionArn: !GetAtt AuthorizerFunction.Arn
            Identity: {Headers: [header], QueryStrings: [query], ReauthorizeEvery: 300}
          RequestAuthorizerV1:
            AuthorizerPayloadFormatVersion: "1.0"
            FunctionArn: !GetAtt AuthorizerFunction.Arn
            Identity: {Headers: [header], QueryStrings: [query]}
          RequestAuthorizerV2Simple:
            AuthorizerPayloadFormatVersion: "2.0"
            EnableSimpleResponses: true
            FunctionArn: !GetAtt AuthorizerFunctionSimple.Arn
            Identity: {Headers: [header], QueryStrings: [query]}
  HelloWorldFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        V2: {Type: HttpApi, Properties: {ApiId: !Ref TestServerlessHttpApi, Path: /requestauthorizerv2, Method: get}}
        V2Route1: {Type: HttpApi, Properties: {ApiId: !Ref TestServerlessHttpApi, Path: /requestauthorizerv2/v1, Method: get, PayloadFormatVersion: '1.0'}}
        V1: {Type: HttpApi, Properties: {ApiId: !Ref TestServerlessHttpApi, Path: /requestauthorizerv1, Method: get, Auth: {Authorizer: RequestAuthorizerV1}}}
        Simple: {Type: HttpApi, Properties: {ApiId: !Ref TestServerlessHttpApi, Path: /requestauthorizerv2simple, Method: get, Auth: {Authorizer: RequestAuthorizerV2Simple}}}
  AuthorizerFunction:
    Type: AWS::Serverless::Function
  AuthorizerFunctionSimple:
    Type: AWS::Serverless::Function
`

// test_sfn_props_lambda_authorizers.py and test_cfn_authorizer_definitions.py
// on an HTTP API (serverless-http-props.yaml; AuthOverride
// RequestAuthorizerV2, RequestAuthorizerV2Simple, RequestAuthorizerV1; the
// route's payload 2.0 and 1.0).
func TestSAMCLIHTTPLambdaAuthorizers(t *testing.T) {
	t.Parallel()
	valid := map[string]string{"header": "myheader"}
	fromAuthorizer := expect{status: 200, json: `{"message":"from authorizer"}`}
	for _, tc := range []struct {
		name         string
		auth, simple func([]byte) ([]byte, bool, error)
		call         call
		want         expect
	}{
		{"TestSfnPropertiesLambdaAuthorizers/test_invokes_authorizer (RequestAuthorizerV2)", nil, nil, call{path: "/requestauthorizerv2?query=myquery", header: valid}, fromAuthorizer},
		{"TestCfnLambdaAuthorizerResources/test_invokes_authorizer (route payload 1.0)", nil, nil, call{path: "/requestauthorizerv2/v1?query=myquery", header: valid}, fromAuthorizer},
		{"TestSfnPropertiesLambdaAuthorizers/test_invokes_authorizer (RequestAuthorizerV1)", nil, nil, call{path: "/requestauthorizerv1?query=myquery", header: valid}, fromAuthorizer},
		{"TestSfnPropertiesLambdaAuthorizers/test_invokes_authorizer (RequestAuthorizerV2Simple)", nil, nil, call{path: "/requestauthorizerv2simple?query=myquery", header: valid}, fromAuthorizer},
		{"TestSfnPropertiesLambdaAuthorizers/test_missing_identity_sources", nil, nil, call{path: "/requestauthorizerv2", header: valid},
			expect{status: 401, json: `{"message":"Unauthorized"}`}},
		// An HTTP API denies with 403 {"message":"Forbidden"} ("Working
		// with AWS Lambda authorizers for HTTP APIs"); SAM CLI answers as
		// a REST API ("User is not authorized to access this resource").
		{"TestSfnPropertiesLambdaAuthorizersUnauthorized/test_unauthorized_request (app.unauth)", unauth, nil, call{path: "/requestauthorizerv2?query=myquery", header: valid},
			expect{status: 403, json: `{"message":"Forbidden"}`}},
		{"TestSfnPropertiesLambdaAuthorizersUnauthorized/test_unauthorized_request (app.unauthv2)", nil, unauthV2, call{path: "/requestauthorizerv2simple?query=myquery", header: valid},
			expect{status: 403, json: `{"message":"Forbidden"}`}},
		{"TestSfnPropertiesLambdaAuthorizer500/test_unauthorized_request", throwsException, nil, call{path: "/requestauthorizerv2?query=myquery", header: valid},
			expect{status: 500, json: `{"message":"Internal Server Error"}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fns := &authorizerFns{}
			auth, simple := tc.auth, tc.simple
			if auth == nil {
				auth = fns.authHandler
			}
			if simple == nil {
				simple = fns.simpleHandler
			}
			g, _ := serveTemplate(t, httpAuthorizers, map[string]func([]byte) ([]byte, bool, error){
				"AuthorizerFunction": auth, "AuthorizerFunctionSimple": simple, "HelloWorldFunction": passedBack,
			})
			tc.want.check(t, tc.call.do(g))
		})
	}
	t.Run("events and context of each payload version", func(t *testing.T) {
		t.Parallel()
		fns := &authorizerFns{}
		g, l := serveTemplate(t, httpAuthorizers, map[string]func([]byte) ([]byte, bool, error){
			"AuthorizerFunction": fns.authHandler, "AuthorizerFunctionSimple": fns.simpleHandler, "HelloWorldFunction": echoEvent,
		})
		rec := call{path: "/requestauthorizerv2?query=myquery", header: map[string]string{"header": "myheader"}}.do(g)
		var v2 events.APIGatewayV2CustomAuthorizerV2Request
		_ = json.Unmarshal([]byte(mustJSON(fns.last())), &v2)
		if v2.Version != "2.0" || v2.Type != "REQUEST" || strings.Join(v2.IdentitySource, ",") != "myheader,myquery" ||
			v2.RouteArn != "arn:aws:execute-api:us-east-1:123456789012:local/http/GET/requestauthorizerv2" || v2.RouteKey != "GET /requestauthorizerv2" {
			t.Errorf("2.0 authorizer event %+v", v2)
		}
		var fnEvent events.APIGatewayV2HTTPRequest
		_ = json.Unmarshal(rec.Body.Bytes(), &fnEvent)
		if a := fnEvent.RequestContext.Authorizer; a == nil || a.Lambda["passed"] != "from authorizer" || a.Lambda["principalId"] != "user|a1b2c3d4" {
			t.Errorf("requestContext.authorizer %+v, want the context under lambda", a)
		}
		// The answer is cached for ReauthorizeEvery per identity.
		call{path: "/requestauthorizerv2?query=myquery", header: map[string]string{"header": "myheader"}}.do(g)
		if n := l.Count("AuthorizerFunction"); n != 1 {
			t.Errorf("the authorizer ran %d times for one identity, want 1 (ReauthorizeEvery 300)", n)
		}
		call{path: "/requestauthorizerv2?query=other", header: map[string]string{"header": "myheader"}}.do(g)
		if n := l.Count("AuthorizerFunction"); n != 2 {
			t.Errorf("the authorizer ran %d times for two identities, want 2", n)
		}

		rec = call{path: "/requestauthorizerv1?query=myquery", header: map[string]string{"header": "myheader"}}.do(g)
		var v1 events.APIGatewayV2CustomAuthorizerV1Request
		_ = json.Unmarshal([]byte(mustJSON(fns.last())), &v1)
		if v1.Version != "1.0" || v1.IdentitySource != "myheader,myquery" || v1.AuthorizationToken != "myheader,myquery" || !strings.HasSuffix(v1.MethodArn, "/http/GET/requestauthorizerv1") {
			t.Errorf("1.0 authorizer event %+v", v1)
		}
		_ = json.Unmarshal(rec.Body.Bytes(), &fnEvent)
		if a := fnEvent.RequestContext.Authorizer; a == nil || a.Lambda["passed"] != "from authorizer" {
			t.Errorf("a route of payload 2.0 behind a 1.0 authorizer: %+v", a)
		}

		rec = call{path: "/requestauthorizerv2/v1?query=myquery", header: map[string]string{"header": "myheader"}}.do(g)
		var v1Event events.APIGatewayProxyRequest
		_ = json.Unmarshal(rec.Body.Bytes(), &v1Event)
		if v1Event.RequestContext.Authorizer["passed"] != "from authorizer" {
			t.Errorf("a route of payload 1.0: requestContext.authorizer %v, want the context flat", v1Event.RequestContext.Authorizer)
		}
	})
}

const swaggerAuthorizers = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  MyApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: swagger
      DefinitionBody:
        openapi: '3.0'
        security: [{TokenAuthorizer: []}]
        components:
          securitySchemes:
            TokenAuthorizer:
              type: apiKey
              in: header
              name: header
              x-amazon-apigateway-authorizer:
                type: token
                identityValidationExpression: ^myheader$
                authorizerUri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${AuthorizerFunction.Arn}/invocations
            RequestAuthorizer:
              type: apiKey
              in: header
              name: Unused
              x-amazon-apigateway-authorizer:
                type: request
                identitySource: method.request.header.header, method.request.querystring.query
                authorizerUri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${AuthorizerFunction.Arn}/invocations
        paths:
          /:
            get:
              x-amazon-apigateway-integration: {type: aws_proxy, uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${HelloWorldFunction.Arn}/invocations'}
          /requestauthorizerswaggerrequest/{status}:
            get:
              security: [{RequestAuthorizer: []}]
              x-amazon-apigateway-integration: {type: aws_proxy, uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${HelloWorldFunction.Arn}/invocations'}
          /open:
            get:
              security: []
              x-amazon-apigateway-integration: {type: aws_proxy, uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${HelloWorldFunction.Arn}/invocations'}
  HelloWorldFunction:
    Type: AWS::Serverless::Function
  AuthorizerFunction:
    Type: AWS::Serverless::Function
`

// test_swagger_authorizer_definitions.py: TestSwaggerLambdaAuthorizerResources
// (the root path, the TOKEN authorizer's identityValidationExpression, the
// parameterised authorized/unauthorized paths) and
// TestSwaggerLambdaAuthorizersUnauthorized: a policy that allows only
// one exact method ARN, and Denies another.
func TestSAMCLISwaggerAuthorizers(t *testing.T) {
	t.Parallel()
	exact := func([]byte) ([]byte, bool, error) {
		return []byte(`{"principalId":"p","policyDocument":{"Statement":[
			{"Effect":"Allow","Action":"execute-api:Invoke","Resource":"arn:aws:execute-api:us-east-1:123456789012:local/swagger/GET/requestauthorizerswaggerrequest/authorized"},
			{"Effect":"Deny","Action":"execute-api:Invoke","Resource":"arn:aws:execute-api:us-east-1:123456789012:local/swagger/GET/requestauthorizerswaggerrequest/unauthorized"}],
			"Version":"2012-10-17"},"context":{"passed":"from authorizer"}}`), false, nil
	}
	g, l := serveTemplate(t, swaggerAuthorizers, map[string]func([]byte) ([]byte, bool, error){"AuthorizerFunction": exact, "HelloWorldFunction": passedBack})
	valid := map[string]string{"header": "myheader"}
	runCases(t, g, []samCase{
		{"test_swagger_authorizer_definitions/test_invokes_authorizer (root path, default TOKEN)", call{path: "/", header: valid}, expect{status: 403}},
		{"test_swagger_authorizer_definitions/test_missing_identity_sources (validation expression)", call{path: "/", header: map[string]string{"header": "notmyheader"}},
			expect{status: 401, json: `{"message":"Unauthorized"}`}},
		{"TestSwaggerLambdaAuthorizerResources/test_invokes_parameterized_authorizer (authorized)", call{path: "/requestauthorizerswaggerrequest/authorized?query=q", header: valid},
			expect{status: 200, json: `{"message":"from authorizer"}`}},
		{"TestSwaggerLambdaAuthorizersUnauthorized/test_invokes_parameterized_authorizer (unauthorized)", call{path: "/requestauthorizerswaggerrequest/unauthorized?query=q", header: valid},
			expect{status: 403, json: `{"message":"User is not authorized to access this resource"}`}},
		{"security: [] runs no authorizer", call{path: "/open"}, expect{status: 200}},
	})
	t.Run("the TOKEN answer is cached for 300 s by default", func(t *testing.T) {
		before := l.Count("AuthorizerFunction")
		call{path: "/", header: valid}.do(g)
		call{path: "/", header: valid}.do(g)
		if n := l.Count("AuthorizerFunction") - before; n > 1 {
			t.Errorf("the authorizer ran %d times for one token", n)
		}
	})
}

// jwtIssuer is an identity provider: its OpenID configuration and its keys
// on a loopback httptest server, and tokens it signs.
type jwtIssuer struct {
	srv     *httptest.Server
	key     *rsa.PrivateKey
	kid     string
	fetches atomic.Int32
}

func newIssuer(t *testing.T) *jwtIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	iss := &jwtIssuer{key: key, kid: "k1"}
	mux := http.NewServeMux()
	iss.srv = httptest.NewServer(mux)
	t.Cleanup(iss.srv.Close)
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"issuer":%q,"jwks_uri":%q}`, iss.srv.URL, iss.srv.URL+"/jwks")
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		iss.fetches.Add(1)
		n := base64.RawURLEncoding.EncodeToString(iss.key.N.Bytes())
		e := base64.RawURLEncoding.EncodeToString(big.NewInt(int64(iss.key.E)).Bytes())
		fmt.Fprintf(w, `{"keys":[{"kty":"RSA","kid":%q,"use":"sig","alg":"RS256","n":%q,"e":%q}]}`, iss.kid, n, e)
	})
	return iss
}

// sign signs claims (iss, exp and iat filled in unless given).
func (iss *jwtIssuer) sign(t *testing.T, claims jwt.MapClaims, now time.Time) string {
	t.Helper()
	if _, ok := claims["iss"]; !ok {
		claims["iss"] = iss.srv.URL
	}
	if _, ok := claims["exp"]; !ok {
		claims["exp"] = now.Add(time.Hour).Unix()
	}
	if _, ok := claims["iat"]; !ok {
		claims["iat"] = now.Add(-time.Minute).Unix()
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = iss.kid
	s, err := tok.SignedString(iss.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jwtTemplate(issuer string) string {
	return `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  ShopApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      Auth:
        DefaultAuthorizer: Oidc
        Authorizers:
          Oidc:
            IdentitySource: $request.header.Authorization
            JwtConfiguration:
              issuer: ` + issuer + `
              audience: [shop]
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Read: {Type: HttpApi, Properties: {ApiId: !Ref ShopApi, Path: /orders, Method: get}}
        Write: {Type: HttpApi, Properties: {ApiId: !Ref ShopApi, Path: /orders, Method: post, Auth: {Authorizer: Oidc, AuthorizationScopes: [orders/write]}}}
        V1: {Type: HttpApi, Properties: {ApiId: !Ref ShopApi, Path: /v1, Method: get, PayloadFormatVersion: '1.0'}}
`
}

// HTTP API JWT authorizers, verified against the issuer's keys as API
// Gateway verifies them ("Control access to HTTP APIs with JWT
// authorizers"), where SAM CLI skips them and runs the route open.
func TestJWTAuthorizer(t *testing.T) {
	t.Parallel()
	iss := newIssuer(t)
	g, l := serveTemplate(t, jwtTemplate(iss.srv.URL), nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // serveTemplate's clock
	good := iss.sign(t, jwt.MapClaims{"sub": "alice", "aud": "shop", "scope": "orders/read orders/write", "cognito:groups": []any{"admin", "users"}}, now)
	other, _ := rsa.GenerateKey(rand.Reader, 2048)
	forged := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": iss.srv.URL, "aud": "shop", "exp": now.Add(time.Hour).Unix()})
		tok.Header["kid"] = "k1"
		s, _ := tok.SignedString(other)
		return s
	}()
	hs256 := func() string {
		s, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": iss.srv.URL, "aud": "shop", "exp": now.Add(time.Hour).Unix()}).SignedString([]byte("secret"))
		return s
	}()
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	unauthorized := expect{status: 401, json: `{"message":"Unauthorized"}`}
	cases := []samCase{
		{"a valid token, Bearer", call{path: "/orders", header: bearer(good)}, expect{status: 200, event: func(t *testing.T, ev map[string]any) {
			wantField(t, ev, "alice", "requestContext", "authorizer", "jwt", "claims", "sub")
			wantField(t, ev, "[admin users]", "requestContext", "authorizer", "jwt", "claims", "cognito:groups")
			wantField(t, ev, []any{"orders/read", "orders/write"}, "requestContext", "authorizer", "jwt", "scopes")
		}}},
		{"a valid token alone", call{path: "/orders", header: map[string]string{"Authorization": good}}, expect{status: 200}},
		{"payload 1.0: claims and scopes flat", call{path: "/v1", header: bearer(good)}, expect{status: 200, event: func(t *testing.T, ev map[string]any) {
			wantField(t, ev, "alice", "requestContext", "authorizer", "claims", "sub")
		}}},
		{"the route's scope is there", call{method: "POST", path: "/orders", header: bearer(good)}, expect{status: 200}},
		{"no token", call{path: "/orders"}, unauthorized},
		{"not a JWT", call{path: "/orders", header: bearer("aaa.bbb.ccc")}, unauthorized},
		{"signed by another key", call{path: "/orders", header: bearer(forged)}, unauthorized},
		{"HS256 (only RSA is taken)", call{path: "/orders", header: bearer(hs256)}, unauthorized},
		{"expired", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "shop", "exp": now.Add(-time.Second).Unix()}, now))}, unauthorized},
		{"no exp", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "shop", "exp": nil}, now))}, unauthorized},
		{"not yet valid", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "shop", "nbf": now.Add(time.Hour).Unix()}, now))}, unauthorized},
		{"issued in the future", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "shop", "iat": now.Add(time.Hour).Unix()}, now))}, unauthorized},
		{"another issuer", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "shop", "iss": "https://evil.example"}, now))}, unauthorized},
		{"another audience", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "blog"}, now))},
			expect{status: 401, header: map[string]string{"Www-Authenticate": `Bearer scope="" error="invalid_token" error_description="the token does not have a valid audience"`}}},
		{"client_id stands for a missing aud", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"client_id": "shop"}, now))}, expect{status: 200}},
		{"aud wins over client_id", call{path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "blog", "client_id": "shop"}, now))}, unauthorized},
		{"the route's scope is missing", call{method: "POST", path: "/orders", header: bearer(iss.sign(t, jwt.MapClaims{"aud": "shop", "scp": []any{"orders/read"}}, now))},
			expect{status: 403, json: `{"message":"Forbidden"}`}},
	}
	runCases(t, g, cases)
	t.Run("the keys are fetched once", func(t *testing.T) {
		call{path: "/orders", header: bearer(good)}.do(g)
		if n := iss.fetches.Load(); n != 1 {
			t.Errorf("the JWKS was fetched %d times, want once", n)
		}
		if n := l.Count("Fn"); n == 0 {
			t.Error("the function never ran")
		}
	})
}

// A rotated key is fetched when a token names it; an issuer that cannot be
// read is the authorizer failing (500), not the token (401); and an issuer
// that is neither https nor on loopback is never fetched.
func TestJWTKeysAndIssuerFailures(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	t.Run("rotation", func(t *testing.T) {
		t.Parallel()
		iss := newIssuer(t)
		g, _ := serveTemplate(t, jwtTemplate(iss.srv.URL), nil)
		first := iss.sign(t, jwt.MapClaims{"aud": "shop"}, now)
		if rec := (call{path: "/orders", header: map[string]string{"Authorization": first}}).do(g); rec.Code != 200 {
			t.Fatalf("%d %s", rec.Code, rec.Body)
		}
		key, _ := rsa.GenerateKey(rand.Reader, 2048)
		iss.key, iss.kid = key, "k2" // the issuer rotates; its JWKS now has k2 alone
		// The keys were fetched at the clock's instant; a minute later an
		// unknown kid makes them be fetched again.
		g.now = func() time.Time { return now.Add(2 * time.Minute) }
		second := iss.sign(t, jwt.MapClaims{"aud": "shop"}, now)
		if rec := (call{path: "/orders", header: map[string]string{"Authorization": second}}).do(g); rec.Code != 200 {
			t.Errorf("a token of the rotated key: %d %s", rec.Code, rec.Body)
		}
		if n := iss.fetches.Load(); n != 2 {
			t.Errorf("fetches %d, want 2", n)
		}
	})
	t.Run("an issuer that does not answer", func(t *testing.T) {
		t.Parallel()
		srv := httptest.NewServer(http.NotFoundHandler())
		srv.Close()
		g, _ := serveTemplate(t, jwtTemplate(srv.URL), nil)
		rec := call{path: "/orders", header: map[string]string{"Authorization": "Bearer a.b.c"}}.do(g)
		expect{status: 500, json: `{"message":"Internal Server Error"}`}.check(t, rec)
	})
	t.Run("an issuer neither https nor loopback", func(t *testing.T) {
		t.Parallel()
		var asked atomic.Bool
		g, _ := serveTemplate(t, jwtTemplate("http://issuer.example"), nil)
		g.Client = &http.Client{Transport: roundTripper(func(*http.Request) (*http.Response, error) {
			asked.Store(true)
			return nil, fmt.Errorf("no network in a test")
		})}
		rec := call{path: "/orders", header: map[string]string{"Authorization": "Bearer a.b.c"}}.do(g)
		if rec.Code != 500 || asked.Load() {
			t.Errorf("%d, fetched %v; want 500 without a fetch", rec.Code, asked.Load())
		}
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
