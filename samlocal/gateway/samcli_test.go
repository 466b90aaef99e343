package gateway

import (
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/gateway/gatewaytest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// These tests port the behaviours that SAM CLI's start-api integration
// tests assert (aws/aws-sam-cli, tests/integration/local/start_api/, with
// the fixtures of tests/integration/testdata/start_api/): each case names
// the test class and method it follows. The fixtures' Python handlers are
// fakes here (lambdas), answering as those handlers do (main.py,
// lambda_authorizers/app.py); the templates are the fixtures' shapes, cut
// to the routes a case needs. Where samlocal answers otherwise, on
// purpose, the case says so and why (API Gateway's documented behaviour).

// returns is a function answering raw.
func returns(raw string) func([]byte) ([]byte, bool, error) {
	return func([]byte) ([]byte, bool, error) { return []byte(raw), false, nil }
}

// echoEvent is main.py's echo_event_handler: the event as the body.
func echoEvent(payload []byte) ([]byte, bool, error) {
	b, _ := json.Marshal(map[string]any{"statusCode": 200, "body": string(payload)})
	return b, false, nil
}

// echoBase64Body is main.py's echo_base64_event_body: the request body,
// base64 as it came, with the request's Content-Type.
func echoBase64Body(payload []byte) ([]byte, bool, error) {
	var ev struct {
		Headers         map[string]string `json:"headers"`
		Body            string            `json:"body"`
		IsBase64Encoded bool              `json:"isBase64Encoded"`
	}
	_ = json.Unmarshal(payload, &ev)
	ct := ev.Headers["Content-Type"]
	if ct == "" {
		ct = ev.Headers["content-type"]
	}
	b, _ := json.Marshal(map[string]any{"statusCode": 200, "headers": map[string]string{"Content-Type": ct}, "body": ev.Body, "isBase64Encoded": ev.IsBase64Encoded})
	return b, false, nil
}

const (
	hello  = `{"statusCode":200,"body":"{\"hello\":\"world\"}"}`
	gifB64 = "R0lGODdhAQABAJEAAAAAAP///wAAAAAAACH5BAkAAAIALAAAAAABAAEAAAICRAEAOw=="
)

// serveTemplate serves raw's APIs with the fake functions.
// A function the case names no answer for echoes the event (SAM's
// echo_event_handler).
func serveTemplate(t testing.TB, raw string, answers map[string]func([]byte) ([]byte, bool, error)) (*Gateway, *gatewaytest.Lambdas) {
	t.Helper()
	tpl, err := samtemplate.Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	apis, _, err := tpl.APIs()
	if err != nil {
		t.Fatal(err)
	}
	l := gatewaytest.NewLambdas(answers)
	l.Otherwise = echoEvent
	g, err := NewAll(apis, l, func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return g, l
}

// call is a request of a case.
type call struct {
	method, path string
	header       map[string]string
	body         string
}

func (c call) do(g http.Handler) *httptest.ResponseRecorder {
	method := c.method
	if method == "" {
		method = "GET"
	}
	req := httptest.NewRequest(method, c.path, strings.NewReader(c.body))
	req.Host = "127.0.0.1:3000"
	for k, v := range c.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	return rec
}

// expect is what a case wants of the answer.
type expect struct {
	status int
	json   string            // the body, compared as JSON; "" skips
	text   *string           // the body exactly; nil skips
	header map[string]string // values; "" wants the header absent
	event  func(t *testing.T, ev map[string]any)
}

func text(s string) *string { return &s }

func (e expect) check(t *testing.T, rec *httptest.ResponseRecorder) {
	t.Helper()
	body := rec.Body.String()
	if rec.Code != e.status {
		t.Errorf("status %d, want %d (body %s)", rec.Code, e.status, body)
	}
	if e.json != "" && !jsonEqual(body, e.json) {
		t.Errorf("body %s, want %s", body, e.json)
	}
	if e.text != nil && body != *e.text {
		t.Errorf("body %q, want %q", body, *e.text)
	}
	for k, v := range e.header {
		if got := strings.Join(rec.Header().Values(k), ", "); got != v {
			t.Errorf("header %s: %q, want %q", k, got, v)
		}
	}
	if e.event != nil {
		var ev map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &ev); err != nil {
			t.Fatalf("the answer is not the echoed event: %v: %s", err, body)
		}
		e.event(t, ev)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// field walks an event: field(ev, "requestContext", "stage").
func field(ev map[string]any, path ...string) any {
	var v any = ev
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func wantField(t *testing.T, ev map[string]any, want any, path ...string) {
	t.Helper()
	got := field(ev, path...)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s = %#v, want %#v", strings.Join(path, "."), got, want)
	}
}

func eventHas(ev map[string]any, path ...string) bool {
	m, _ := field(ev, path[:len(path)-1]...).(map[string]any)
	_, ok := m[path[len(path)-1]]
	return ok
}

type samCase struct {
	name string // the SAM CLI test class and method
	call call
	want expect
}

func runCases(t *testing.T, g http.Handler, cases []samCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.want.check(t, tc.call.do(g))
		})
	}
}

const restTemplate = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
  Api:
    BinaryMediaTypes: [image~1gif, image~1png]
    Variables: {VarName: varValue}
Resources:
  HelloWorldFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        IdBasePath: {Type: Api, Properties: {Path: /id, Method: post}}
        AnyMethod: {Type: Api, Properties: {Path: /anyandall, Method: any}}
        ProxyPath: {Type: Api, Properties: {Path: '/proxypath/{proxy+}', Method: get}}
  EchoEventFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Post: {Type: Api, Properties: {Path: /echoeventbody, Method: post}}
        Id: {Type: Api, Properties: {Path: '/id/{id}', Method: get}}
        IdUser: {Type: Api, Properties: {Path: '/id/{id}/user/{user}', Method: get}}
        Root: {Type: Api, Properties: {Path: /, Method: get}}
  EchoEventFunction2:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /echoeventbody, Method: get}}
  EchoBase64Function:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Post: {Type: Api, Properties: {Path: /echobase64eventbody, Method: post}}
  Base64Response:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /base64response, Method: get}}
  NotDecoded:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /nondecodedbase64response, Method: get}}
  Base64Encoded:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /decodedbase64responsebas64encoded, Method: get}}
  Base64Priority:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /decodedbase64responsebas64encodedpriority, Method: get}}
  OnlySetBody:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /onlysetbody, Method: get}}
  OnlySetStatusCode:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /onlysetstatuscode, Method: get}}
  StringStatusCode:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /stringstatuscode, Method: get}}
  MultipleHeaders:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /multipleheaders, Method: get}}
  MultipleHeadersOverride:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /multipleheadersoverridesheaders, Method: get}}
  InvalidResponseReturned:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /invalidresponsereturned, Method: get}}
  InvalidResponseHash:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /invalidresponsehash, Method: get}}
  EchoIntegerBody:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /echo_integer_body, Method: get}}
`

var restAnswers = map[string]func([]byte) ([]byte, bool, error){
	"HelloWorldFunction": returns(hello),
	"EchoEventFunction2": func(p []byte) ([]byte, bool, error) {
		var ev map[string]any
		_ = json.Unmarshal(p, &ev)
		ev["handler"] = "echo_event_handler_2"
		b, _ := json.Marshal(ev)
		return echoEvent(b)
	},
	"EchoBase64Function":      echoBase64Body,
	"Base64Response":          returns(`{"statusCode":200,"body":"` + gifB64 + `","isBase64Encoded":true,"headers":{"Content-Type":"image/gif"}}`),
	"NotDecoded":              returns(`{"statusCode":200,"body":"` + gifB64 + `","isBase64Encoded":false,"headers":{"Content-Type":"image/gif"}}`),
	"Base64Encoded":           returns(`{"statusCode":200,"body":"` + gifB64 + `","base64Encoded":true,"headers":{"Content-Type":"image/gif"}}`),
	"Base64Priority":          returns(`{"statusCode":200,"body":"` + gifB64 + `","base64Encoded":false,"isBase64Encoded":true,"headers":{"Content-Type":"image/gif"}}`),
	"OnlySetBody":             returns(`{"body":"{\"hello\":\"world\"}"}`),
	"OnlySetStatusCode":       returns(`{"statusCode":200}`),
	"StringStatusCode":        returns(`{"statusCode":"200","body":"{\"hello\":\"world\"}"}`),
	"MultipleHeaders":         returns(`{"statusCode":200,"body":"hello","headers":{"Content-Type":"text/plain"},"multiValueHeaders":{"MyCustomHeader":["Value1","Value2"]}}`),
	"MultipleHeadersOverride": returns(`{"statusCode":200,"body":"hello","headers":{"Content-Type":"text/plain","MyCustomHeader":"Custom"},"multiValueHeaders":{"MyCustomHeader":["Value1","Value2"]}}`),
	"InvalidResponseReturned": returns(`"This is invalid"`),
	"InvalidResponseHash":     returns(`{"foo":"bar"}`),
	"EchoIntegerBody":         returns(`{"statusCode":200,"body":42}`),
}

func gif() string {
	b, _ := base64.StdEncoding.DecodeString(gifB64)
	return string(b)
}

// test_start_api.py: TestService, TestServiceErrorResponses,
// TestServiceResponses, TestServiceRequests, TestStartApiWithStage
// (template.yaml).
func TestSAMCLIRestAPI(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, restTemplate, restAnswers)
	helloJSON := expect{status: 200, json: `{"hello":"world"}`}
	cases := []samCase{
		{"TestService/test_calling_proxy_endpoint", call{path: "/proxypath/this/is/some/path"}, helloJSON},
		{"TestServiceErrorResponses/test_invalid_http_verb_for_endpoint", call{path: "/id"},
			expect{status: 403, json: `{"message":"Missing Authentication Token"}`}},
		{"TestServiceErrorResponses/test_invalid_response_from_lambda", call{path: "/invalidresponsereturned"},
			expect{status: 502, json: `{"message":"Internal server error"}`}},
		{"TestServiceErrorResponses/test_invalid_json_response_from_lambda", call{path: "/invalidresponsehash"},
			expect{status: 502, json: `{"message":"Internal server error"}`}},
		{"TestServiceResponses/test_multiple_headers_response", call{path: "/multipleheaders"},
			expect{status: 200, header: map[string]string{"Content-Type": "text/plain", "MyCustomHeader": "Value1, Value2"}}},
		{"TestServiceResponses/test_multiple_headers_overrides_headers_response", call{path: "/multipleheadersoverridesheaders"},
			expect{status: 200, header: map[string]string{"Content-Type": "text/plain", "MyCustomHeader": "Value1, Value2, Custom"}}},
		{"TestServiceResponses/test_binary_response", call{path: "/base64response", header: map[string]string{"Accept": "*/*"}},
			expect{status: 200, text: text(gif()), header: map[string]string{"Content-Type": "image/gif"}}},
		{"TestStartApiWithSwaggerApis/test_non_decoded_binary_response", call{path: "/nondecodedbase64response", header: map[string]string{"Accept": "*/*"}},
			expect{status: 200, text: text(gifB64)}},
		{"TestStartApiWithSwaggerApis/test_decoded_binary_response_base64encoded_field", call{path: "/decodedbase64responsebas64encoded", header: map[string]string{"Accept": "*/*"}},
			expect{status: 200, text: text(gif())}},
		{"TestStartApiWithSwaggerApis/test_decoded_binary_response_base64encoded_field_is_priority", call{path: "/decodedbase64responsebas64encodedpriority", header: map[string]string{"Accept": "*/*"}},
			expect{status: 200, text: text(gifB64)}},
		{"binary response without an Accept the type matches (SAM CLI's _should_base64_decode_body)", call{path: "/base64response", header: map[string]string{"Accept": "text/html"}},
			expect{status: 200, text: text(gifB64)}},
		{"TestServiceResponses/test_default_header_content_type", call{path: "/onlysetstatuscode"},
			expect{status: 200, text: text(""), header: map[string]string{"Content-Type": "application/json"}}},
		{"TestServiceResponses/test_default_status_code", call{path: "/onlysetbody"}, helloJSON},
		{"TestServiceResponses/test_slash_after_url_path", call{path: "/onlysetbody/"}, helloJSON},
		{"TestServiceResponses/test_string_status_code", call{path: "/stringstatuscode"}, helloJSON},
		{"TestServiceResponses/test_integer_body", call{path: "/echo_integer_body"}, expect{status: 200, text: text("42")}},
		{"TestServiceRequests/test_binary_request", call{method: "POST", path: "/echobase64eventbody", header: map[string]string{"Content-Type": "image/gif", "Accept": "image/gif"}, body: gif()},
			expect{status: 200, text: text(gif()), header: map[string]string{"Content-Type": "image/gif"}}},
		{"TestServiceRequests/test_request_with_form_data", call{method: "POST", path: "/echoeventbody", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, body: "key=value"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "application/x-www-form-urlencoded", "headers", "Content-Type")
				wantField(t, ev, "key=value", "body")
			}}},
		{"TestServiceRequests/test_request_to_an_endpoint_with_two_different_handlers", call{path: "/echoeventbody"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) { wantField(t, ev, "echo_event_handler_2", "handler") }}},
		{"TestServiceRequests/test_request_with_multi_value_headers", call{method: "POST", path: "/echoeventbody", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded, image/gif"}},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, []any{"application/x-www-form-urlencoded, image/gif"}, "multiValueHeaders", "Content-Type")
				wantField(t, ev, "application/x-www-form-urlencoded, image/gif", "headers", "Content-Type")
			}}},
		{"TestServiceRequests/test_request_with_query_params", call{path: "/id/4?key=value"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, map[string]any{"key": "value"}, "queryStringParameters")
				wantField(t, ev, map[string]any{"key": []any{"value"}}, "multiValueQueryStringParameters")
			}}},
		{"TestServiceRequests/test_request_with_list_of_query_params", call{path: "/id/4?key=value&key=value2"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, map[string]any{"key": "value2"}, "queryStringParameters")
				wantField(t, ev, map[string]any{"key": []any{"value", "value2"}}, "multiValueQueryStringParameters")
			}}},
		{"TestServiceRequests/test_request_with_path_params", call{path: "/id/4"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, map[string]any{"id": "4"}, "pathParameters")
				wantField(t, ev, "/id/{id}", "resource")
				wantField(t, ev, "/id/4", "path")
			}}},
		{"TestServiceRequests/test_request_with_many_path_params", call{path: "/id/4/user/jacob"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, map[string]any{"id": "4", "user": "jacob"}, "pathParameters")
			}}},
		{"TestServiceRequests/test_forward_headers_are_added_to_event", call{path: "/id/4"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "http", "headers", "X-Forwarded-Proto")
				wantField(t, ev, []any{"http"}, "multiValueHeaders", "X-Forwarded-Proto")
				wantField(t, ev, "3000", "headers", "X-Forwarded-Port")
				wantField(t, ev, []any{"3000"}, "multiValueHeaders", "X-Forwarded-Port")
			}}},
		{"TestStartApiWithStage/test_default_stage_name and test_global_stage_variables", call{path: "/id/4"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "Prod", "requestContext", "stage")
				wantField(t, ev, map[string]any{"VarName": "varValue"}, "stageVariables")
				// API Gateway's requestContext.path is the stage and the
				// request's path (SAM CLI gives the route's template).
				wantField(t, ev, "/Prod/id/4", "requestContext", "path")
				wantField(t, ev, "/id/{id}", "requestContext", "resourcePath")
			}}},
		{"root path (test_start_api.py: an explicit Path: /)", call{path: "/"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "/", "resource")
				wantField(t, ev, nil, "pathParameters")
			}}},
		{"unknown path: 403 Missing Authentication Token", call{path: "/nothing/here"},
			expect{status: 403, json: `{"message":"Missing Authentication Token"}`}},
		{"paths are case-sensitive", call{path: "/ID/4"}, expect{status: 403}},
	}
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"} {
		cases = append(cases, samCase{"TestService/test_calling_service_with_any_method " + m, call{method: m, path: "/anyandall"}, expect{status: 200}})
	}
	runCases(t, g, cases)
}

const httpTemplate = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  HelloWorldFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        AnyMethod: {Type: HttpApi, Properties: {Path: /anyandall, Method: ANY}}
        ProxyPath: {Type: HttpApi, Properties: {Path: '/proxypath/{proxy+}', Method: GET}}
  ValidV2ResponseHash:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /validv2responsehash, Method: GET}}
  InvalidV1ResponseHash:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /invalidv1responsehash, Method: GET, PayloadFormatVersion: '1.0'}}
  ValidV2ResponseString:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /validv2responsestring, Method: GET}}
  ValidV2ResponseInteger:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /validv2responseinteger, Method: GET}}
  InvalidV2Response:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /invalidv2response, Method: GET}}
  InvalidV1ResponseString:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /invalidv1responsestring, Method: GET, PayloadFormatVersion: '1.0'}}
  InvalidResponseBody:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /invalidresponsebody, Method: GET}}
  Crash:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /crash, Method: GET}}
  EchoEventFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: '/{proxy+}', Method: GET}}
        V1: {Type: HttpApi, Properties: {Path: /httpapi-payload-format-v1-property, Method: GET, PayloadFormatVersion: '1.0'}}
  Cookies:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /cookies, Method: GET}}
`

var httpFixtureAnswers = map[string]func([]byte) ([]byte, bool, error){
	"HelloWorldFunction":      returns(hello),
	"ValidV2ResponseHash":     returns(`{"foo":"bar"}`),
	"InvalidV1ResponseHash":   returns(`{"foo":"bar"}`),
	"ValidV2ResponseString":   returns(`"This is invalid"`),
	"ValidV2ResponseInteger":  returns(`2`),
	"InvalidV2Response":       returns(`{"statusCode":200,"body":"{\"hello\":\"world\"}","key":"value"}`),
	"InvalidV1ResponseString": returns(`"This is invalid"`),
	"InvalidResponseBody":     returns(`{"errorType":"Error","errorMessage":""}`),
	"Crash": func([]byte) ([]byte, bool, error) {
		return []byte(`{"errorType":"Error","errorMessage":"boom"}`), true, nil
	},
	"Cookies": returns(`{"statusCode":201,"cookies":["a=1; Path=/","b=2"],"body":"eyJvayI6dHJ1ZX0=","isBase64Encoded":true}`),
}

// test_start_api.py: TestServiceWithHttpApi, TestServiceRequestsWithHttpApi
// (template-http-api.yaml, swagger-template-http-api.yaml).
func TestSAMCLIHTTPAPI(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, httpTemplate, httpFixtureAnswers)
	cases := []samCase{
		{"TestServiceWithHttpApi/test_calling_proxy_endpoint_http_api", call{path: "/proxypath/this/is/some/path"}, expect{status: 200, json: `{"hello":"world"}`}},
		{"TestServiceWithHttpApi/test_valid_v2_lambda_json_response", call{path: "/validv2responsehash"},
			expect{status: 200, json: `{"foo":"bar"}`, header: map[string]string{"Content-Type": "application/json"}}},
		{"TestServiceWithHttpApi/test_invalid_v1_lambda_json_response", call{path: "/invalidv1responsehash"},
			expect{status: 502, json: `{"message":"Internal server error"}`}},
		{"TestServiceWithHttpApi/test_valid_v2_lambda_string_response", call{path: "/validv2responsestring"}, expect{status: 200, text: text("This is invalid")}},
		{"TestServiceWithHttpApi/test_valid_v2_lambda_integer_response", call{path: "/validv2responseinteger"}, expect{status: 200, text: text("2")}},
		{"TestServiceWithHttpApi/test_v2_lambda_response_skip_unexpected_fields", call{path: "/invalidv2response"}, expect{status: 200, json: `{"hello":"world"}`}},
		{"TestServiceWithHttpApi/test_invalid_v1_lambda_string_response", call{path: "/invalidv1responsestring"},
			expect{status: 502, json: `{"message":"Internal server error"}`}},
		// SAM CLI answers 500 for an answer shaped as Lambda's error
		// document, as it cannot tell it from a function error on the
		// container's stdout. samlocal can: a function that returns such
		// an object gets API Gateway's payload 2.0 rule (an object without
		// statusCode is a 200 JSON body), and a function that fails gets
		// API Gateway's 502 for a failed proxy integration.
		{"TestServiceWithHttpApi/test_invalid_lambda_json_body_response (returned)", call{path: "/invalidresponsebody"},
			expect{status: 200, json: `{"errorType":"Error","errorMessage":""}`}},
		{"TestServiceWithHttpApi/test_invalid_lambda_json_body_response (failed)", call{path: "/crash"},
			expect{status: 502, json: `{"message":"Internal server error"}`}},
		{"TestServiceRequestsWithHttpApi/test_http_api_payload_v2_should_not_have_multivalue", call{path: "/echoeventbody?key=value&key=value2", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded, image/gif"}},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "2.0", "version")
				wantField(t, ev, "application/x-www-form-urlencoded, image/gif", "headers", "content-type")
				wantField(t, ev, map[string]any{"key": "value,value2"}, "queryStringParameters")
				wantField(t, ev, "key=value&key=value2", "rawQueryString")
				wantField(t, ev, "GET /{proxy+}", "routeKey")
				wantField(t, ev, "$default", "requestContext", "stage")
				for _, k := range []string{"multiValueHeaders", "multiValueQueryStringParameters"} {
					if eventHas(ev, k) {
						t.Errorf("payload 2.0 has %s", k)
					}
				}
			}}},
		{"TestPayloadVersionWithStageAndSwaggerWithHttpApi/test_payload_version_v1_property", call{path: "/httpapi-payload-format-v1-property"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "1.0", "version")
				if !eventHas(ev, "multiValueHeaders") || eventHas(ev, "cookies") || eventHas(ev, "requestContext", "operationName") {
					t.Errorf("payload 1.0 of an HTTP API: %v", ev)
				}
			}}},
		{"cookies, rawPath and a decoded path parameter (payload 2.0)", call{path: "/a%20b/c?x=1", header: map[string]string{"Cookie": "k1=v1; k2=v2"}},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, []any{"k1=v1", "k2=v2"}, "cookies")
				wantField(t, ev, "/a%20b/c", "rawPath")
				wantField(t, ev, "/a b/c", "requestContext", "http", "path")
				wantField(t, ev, map[string]any{"proxy": "a b/c"}, "pathParameters")
				if eventHas(ev, "headers", "cookie") {
					t.Error("the Cookie header is in headers as well as cookies")
				}
			}}},
		{"2.0 answer: cookies become Set-Cookie, isBase64Encoded decodes", call{path: "/cookies"},
			expect{status: 201, text: text(`{"ok":true}`), header: map[string]string{"Set-Cookie": "a=1; Path=/, b=2", "Content-Type": "application/json"}}},
		// An HTTP API answers a request no route takes with 404 Not Found
		// ("Routing API requests"); SAM CLI answers 403 Missing
		// Authentication Token, as for a REST API.
		{"no route: 404 Not Found", call{method: "POST", path: "/echoeventbody"}, expect{status: 404, json: `{"message":"Not Found"}`}},
	}
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"} {
		cases = append(cases, samCase{"TestServiceWithHttpApi/test_calling_service_with_any_method " + m, call{method: m, path: "/anyandall"}, expect{status: 200}})
	}
	runCases(t, g, cases)
}

const swaggerTemplate = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  MyApi:
    Type: AWS::Serverless::Api
    Properties:
      StageName: dev
      Variables: {VarName: varValue}
      Cors:
        AllowOrigin: "'*'"
        AllowMethods: "'GET'"
        AllowHeaders: "'origin, x-requested-with'"
        AllowCredentials: true
        MaxAge: "'510'"
      DefinitionBody:
        swagger: '2.0'
        x-amazon-apigateway-binary-media-types: [image~1gif]
        paths:
          /anyandall:
            x-amazon-apigateway-any-method:
              x-amazon-apigateway-integration:
                httpMethod: POST
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${MyLambdaFunction.Arn}/invocations
          /nonsensitiveanyandall:
            x-amazon-apigateway-any-method:
              x-amazon-apigateway-integration:
                type: AWS_PROXY
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${MyLambdaFunction.Arn}/invocations
          /nofunctionfound:
            get:
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${WhatFunction.Arn}/invocations
          /nonserverlessfunction:
            get:
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${MyNonServerlessLambdaFunction.Arn}/invocations
          /echobase64eventbody:
            post:
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${EchoBase64EventBodyFunction.Arn}/invocations
          /printeventwithoperationidfunction:
            get:
              operationId: MyOperationName
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${EchoEventFunction.Arn}/invocations
          /{proxy+}:
            get:
              x-amazon-apigateway-integration:
                type: aws_proxy
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${EchoEventFunction.Arn}/invocations
  MyLambdaFunction:
    Type: AWS::Serverless::Function
  EchoBase64EventBodyFunction:
    Type: AWS::Serverless::Function
  EchoEventFunction:
    Type: AWS::Serverless::Function
  MyNonServerlessLambdaFunction:
    Type: AWS::Lambda::Function
    Properties:
      Runtime: provided.al2023
      Handler: bootstrap
      Code: .
`

// test_start_api.py: TestStartApiWithSwaggerApis,
// TestStartApiWithStageAndSwagger, TestServiceCorsSwaggerRequestsWithRestAPI
// (swagger-template.yaml).
func TestSAMCLISwaggerAPI(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, swaggerTemplate, map[string]func([]byte) ([]byte, bool, error){
		"MyLambdaFunction": returns(hello), "MyNonServerlessLambdaFunction": returns(hello), "EchoBase64EventBodyFunction": echoBase64Body,
	})
	corsHeaders := map[string]string{
		"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "origin, x-requested-with",
		"Access-Control-Allow-Methods": "GET,OPTIONS", "Access-Control-Allow-Credentials": "true", "Access-Control-Max-Age": "510",
	}
	cases := []samCase{
		{"TestStartApiWithSwaggerApis/test_function_not_defined_in_template", call{path: "/nofunctionfound"},
			expect{status: 502, json: `{"message":"No function defined for resource method"}`}},
		{"TestStartApiWithSwaggerApis/test_lambda_function_resource_is_reachable", call{path: "/nonserverlessfunction"}, expect{status: 200, json: `{"hello":"world"}`}},
		{"TestStartApiWithSwaggerApis/test_binary_request", call{method: "POST", path: "/echobase64eventbody", header: map[string]string{"Content-Type": "image/gif", "Accept": "image/gif"}, body: gif()},
			expect{status: 200, text: text(gif()), header: map[string]string{"Content-Type": "image/gif"}}},
		{"TestStartApiWithStageAndSwagger/test_swagger_stage_name and test_swagger_stage_variable", call{path: "/something"},
			expect{status: 200, header: corsHeaders, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "dev", "requestContext", "stage")
				wantField(t, ev, map[string]any{"VarName": "varValue"}, "stageVariables")
			}}},
		{"TestStartApiWithSwaggerRestApis/test_rest_api_operation_id", call{path: "/printeventwithoperationidfunction"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "MyOperationName", "requestContext", "operationName")
			}}},
		{"TestServiceCorsSwaggerRequestsWithRestAPI/test_cors_swagger_options", call{method: "OPTIONS", path: "/echobase64eventbody", header: map[string]string{"Origin": "https://abc"}},
			expect{status: 200, text: text(""), header: corsHeaders}},
		{"TestServiceCorsSwaggerRequestsWithRestAPI/test_cors_swagger_options (no Origin)", call{method: "OPTIONS", path: "/echobase64eventbody"},
			expect{status: 200, text: text(""), header: corsHeaders}},
	}
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"} {
		cases = append(cases,
			samCase{"TestStartApiWithSwaggerApis/test_get_call_with_path_setup_with_any_swagger " + m, call{method: m, path: "/anyandall"}, expect{status: 200, header: corsHeaders}},
			samCase{"TestStartApiWithSwaggerApis/test_any_path_with_swagger_case_insensitive " + m, call{method: m, path: "/nonsensitiveanyandall"}, expect{status: 200}})
	}
	runCases(t, g, cases)
}

const swaggerHTTPTemplate = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  MyHttpApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: dev-http
      StageVariables: {VarNameHttpApi: varValueV2}
      CorsConfiguration:
        AllowOrigins: ['*']
        AllowHeaders: [origin]
        AllowMethods: [GET, POST]
        AllowCredentials: true
        MaxAge: 42
      DefinitionBody:
        openapi: '3.0'
        paths:
          /httpapi-anyandall:
            x-amazon-apigateway-any-method:
              x-amazon-apigateway-integration:
                type: aws_proxy
                payloadFormatVersion: '2.0'
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${MyLambdaFunction.Arn}/invocations
          /httpapi-operation-id-v1:
            get:
              operationId: MyOperationName
              x-amazon-apigateway-integration:
                type: aws_proxy
                payloadFormatVersion: '1.0'
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${EchoEventFunction.Arn}/invocations
          /httpapi-operation-id-v2:
            get:
              operationId: MyOperationName
              x-amazon-apigateway-integration:
                type: aws_proxy
                payloadFormatVersion: '2.0'
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${EchoEventFunction.Arn}/invocations
          /httpapi-echobase64eventbody:
            post:
              x-amazon-apigateway-integration:
                type: aws_proxy
                payloadFormatVersion: '2.0'
                uri: !Sub arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${MyLambdaFunction.Arn}/invocations
  MyLambdaFunction:
    Type: AWS::Serverless::Function
  EchoEventFunction:
    Type: AWS::Serverless::Function
`

// test_start_api.py: TestStartApiWithSwaggerHttpApis,
// TestStartApiWithStageAndSwaggerWithHttpApi,
// TestPayloadVersionWithStageAndSwaggerWithHttpApi,
// TestServiceCorsSwaggerRequestsWithHttpApi (swagger-template-http-api.yaml).
func TestSAMCLISwaggerHTTPAPI(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, swaggerHTTPTemplate, map[string]func([]byte) ([]byte, bool, error){"MyLambdaFunction": returns(hello)})
	cors := map[string]string{
		"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "origin",
		"Access-Control-Allow-Methods": "GET,OPTIONS,POST", "Access-Control-Allow-Credentials": "true", "Access-Control-Max-Age": "42",
	}
	origin := map[string]string{"Origin": "https://abc"}
	cases := []samCase{
		{"TestStartApiWithSwaggerHttpApis/test_http_api_payload_v1_should_not_have_operation_id", call{path: "/httpapi-operation-id-v1"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "1.0", "version")
				wantField(t, ev, "dev-http", "requestContext", "stage")
				if eventHas(ev, "requestContext", "operationName") {
					t.Error("an HTTP API's 1.0 event has operationName")
				}
			}}},
		{"TestStartApiWithSwaggerHttpApis/test_http_api_payload_v2_should_not_have_operation_id and TestStartApiWithStageAndSwaggerWithHttpApi", call{path: "/httpapi-operation-id-v2"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "2.0", "version")
				wantField(t, ev, "dev-http", "requestContext", "stage")
				wantField(t, ev, map[string]any{"VarNameHttpApi": "varValueV2"}, "stageVariables")
				if eventHas(ev, "requestContext", "operationName") || eventHas(ev, "requestContext", "operationId") {
					t.Error("a 2.0 event has an operation")
				}
			}}},
		{"TestServiceCorsSwaggerRequestsWithHttpApi/test_cors_swagger_options_httpapi", call{method: "OPTIONS", path: "/httpapi-echobase64eventbody", header: origin},
			expect{status: 200, header: cors}},
		{"TestServiceCorsSwaggerRequestsWithHttpApi/test_cors_swagger_get_httpapi", call{method: "POST", path: "/httpapi-echobase64eventbody", header: origin},
			expect{status: 200, header: cors}},
	}
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"} {
		cases = append(cases, samCase{"TestStartApiWithSwaggerHttpApis/test_get_call_with_path_setup_with_any_swagger " + m, call{method: m, path: "/httpapi-anyandall"}, expect{status: 200}})
	}
	runCases(t, g, cases)
}

// test_start_api.py: TestServiceCorsComplexHttpApi (template-cors.yaml) and
// TestServiceCorsGlobalRequests (template.yaml's Globals Cors "'*”").
func TestSAMCLICors(t *testing.T) {
	t.Parallel()
	g, l := serveTemplate(t, `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
  Api:
    Cors: "'*''"
Resources:
  MyHttpApi:
    Type: AWS::Serverless::HttpApi
    Properties:
      StageName: foo
      CorsConfiguration:
        AllowCredentials: true
        AllowHeaders: [Accept, My-Custom-Header]
        ExposeHeaders: [Content-Encoding, Another-Custom-Header]
        AllowMethods: [GET, POST, PUT, DELETE, PATCH, OPTIONS]
        AllowOrigins: ['https://abc', 'http://xyz:3000']
        MaxAge: 3600
  TestFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Post: {Type: HttpApi, Properties: {ApiId: !Ref MyHttpApi, Path: /test, Method: post}}
  RestFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Post: {Type: Api, Properties: {Path: /echobase64eventbody, Method: post}}
`, map[string]func([]byte) ([]byte, bool, error){"TestFunction": returns(`{"statusCode":200,"headers":{"Access-Control-Allow-Origin":"lambda"},"body":"{}"}`), "RestFunction": returns(hello)})
	complex := map[string]string{
		"Access-Control-Allow-Headers": "Accept,My-Custom-Header", "Access-Control-Allow-Methods": "DELETE,GET,OPTIONS,PATCH,POST,PUT",
		"Access-Control-Allow-Credentials": "true", "Access-Control-Max-Age": "3600",
	}
	with := func(origin string) map[string]string {
		h := map[string]string{"Access-Control-Allow-Origin": origin}
		for k, v := range complex {
			h[k] = v
		}
		return h
	}
	none := map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Headers": "", "Access-Control-Allow-Methods": "", "Access-Control-Allow-Credentials": "", "Access-Control-Max-Age": ""}
	cases := []samCase{
		{"TestServiceCorsComplexHttpApi/test_cors_complex_options_http_api", call{method: "OPTIONS", path: "/test", header: map[string]string{"Origin": "https://abc"}}, expect{status: 200, header: with("https://abc")}},
		{"TestServiceCorsComplexHttpApi/test_cors_complex_options_http_api (second origin)", call{method: "OPTIONS", path: "/test", header: map[string]string{"Origin": "http://xyz:3000"}}, expect{status: 200, header: with("http://xyz:3000")}},
		// The API's headers replace the function's (LAS _request_handler).
		{"TestServiceCorsComplexHttpApi/test_cors_complex_post_http_api", call{method: "POST", path: "/test", header: map[string]string{"Origin": "https://abc"}}, expect{status: 200, header: with("https://abc")}},
		{"TestServiceCorsComplexHttpApi/test_cors_complex_options_http_api_with_unknown_origin", call{method: "OPTIONS", path: "/test", header: map[string]string{"Origin": "https://unknown"}}, expect{status: 200, header: none}},
		{"TestServiceCorsComplexHttpApi/test_cors_complex_options_http_api_without_origin", call{method: "OPTIONS", path: "/test"}, expect{status: 200, header: none}},
		{"TestServiceCorsGlobalRequests/test_cors_global", call{method: "OPTIONS", path: "/echobase64eventbody"},
			expect{status: 200, header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Methods": "DELETE,GET,HEAD,OPTIONS,PATCH,POST,PUT",
				"Access-Control-Allow-Headers": "", "Access-Control-Allow-Credentials": "", "Access-Control-Max-Age": ""}}},
		{"TestServiceCorsGlobalRequests/test_cors_global (with Origin)", call{method: "OPTIONS", path: "/echobase64eventbody", header: map[string]string{"Origin": "https://abc"}},
			expect{status: 200, header: map[string]string{"Access-Control-Allow-Origin": "*"}}},
	}
	runCases(t, g, cases)
	t.Run("a preflight runs no function", func(t *testing.T) {
		call{method: "OPTIONS", path: "/echobase64eventbody"}.do(g)
		if n := l.Count("RestFunction"); n != 0 {
			t.Errorf("the function ran %d times for preflights", n)
		}
	})
}

// test_start_api.py: TestOptionsHandler (options-handler-template.yml):
// without CORS, an OPTIONS route runs its function.
func TestSAMCLIOptionsHandler(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  OptionsFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Options: {Type: Api, Properties: {Path: /optionshandler, Method: options}}
`, map[string]func([]byte) ([]byte, bool, error){"OptionsFunction": returns(`{"statusCode":204}`)})
	runCases(t, g, []samCase{{"TestOptionsHandler/test_options_handler", call{method: "OPTIONS", path: "/optionshandler"}, expect{status: 204}}})
}

const cfnTemplate = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  MyApi:
    Type: AWS::ApiGateway::RestApi
    Properties:
      Name: cfn
      BinaryMediaTypes: [image~1png]
  Stage:
    Type: AWS::ApiGateway::Stage
    Properties: {RestApiId: !Ref MyApi, StageName: Dev, Variables: {Stack: Dev}}
  RootResource:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref MyApi, ParentId: !GetAtt MyApi.RootResourceId, PathPart: root}
  AnyResource:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref MyApi, ParentId: !Ref RootResource, PathPart: anyandall}
  V1Resource:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref MyApi, ParentId: !Ref RootResource, PathPart: v1}
  ProxyResource:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref MyApi, ParentId: !Ref V1Resource, PathPart: '{proxy+}'}
  NoFunctionResource:
    Type: AWS::ApiGateway::Resource
    Properties: {RestApiId: !Ref MyApi, ParentId: !Ref RootResource, PathPart: nofunctionfound}
  AnyMethod:
    Type: AWS::ApiGateway::Method
    Properties:
      RestApiId: !Ref MyApi
      ResourceId: !Ref AnyResource
      HttpMethod: ANY
      OperationName: MyOperationName
      Integration: {Type: AWS_PROXY, IntegrationHttpMethod: POST, Uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${EchoFunction.Arn}/invocations'}
  ProxyMethod:
    Type: AWS::ApiGateway::Method
    Properties:
      RestApiId: !Ref MyApi
      ResourceId: !Ref ProxyResource
      HttpMethod: GET
      Integration: {Type: AWS_PROXY, Uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${HelloFunction.Arn}/invocations'}
  NoFunctionMethod:
    Type: AWS::ApiGateway::Method
    Properties:
      RestApiId: !Ref MyApi
      ResourceId: !Ref NoFunctionResource
      HttpMethod: GET
      Integration: {Type: AWS_PROXY, Uri: !Sub 'arn:aws:apigateway:${AWS::Region}:lambda:path/2015-03-31/functions/${WhatFunction.Arn}/invocations'}
  OptionsMethod:
    Type: AWS::ApiGateway::Method
    Properties:
      RestApiId: !Ref MyApi
      ResourceId: !GetAtt MyApi.RootResourceId
      HttpMethod: OPTIONS
      Integration:
        Type: MOCK
        IntegrationResponses:
          - StatusCode: '204'
            ResponseParameters:
              method.response.header.Access-Control-Allow-Headers: "'Content-Type,X-Amz-Date,Authorization'"
              method.response.header.Access-Control-Allow-Origin: "'*'"
              method.response.header.Access-Control-Allow-Methods: "'GET,OPTIONS'"
              method.response.header.Access-Control-Allow-Credentials: "'true'"
              method.response.header.Access-Control-Max-Age: "'510'"
  EchoFunction:
    Type: AWS::Serverless::Function
  HelloFunction:
    Type: AWS::Serverless::Function
  QuickApi:
    Type: AWS::ApiGatewayV2::Api
    Properties:
      Name: quick
      ProtocolType: HTTP
      Target: !GetAtt EchoFunction.Arn
      CorsConfiguration:
        AllowOrigins: ['https://example.com']
        AllowHeaders: [x-apigateway-header]
        AllowMethods: [GET]
        AllowCredentials: true
        MaxAge: 600
  HttpApi:
    Type: AWS::ApiGatewayV2::Api
    Properties: {Name: routes, ProtocolType: HTTP}
  HttpStage:
    Type: AWS::ApiGatewayV2::Stage
    Properties: {ApiId: !Ref HttpApi, StageName: prod, StageVariables: {Where: cfn}}
  EchoIntegration:
    Type: AWS::ApiGatewayV2::Integration
    Properties: {ApiId: !Ref HttpApi, IntegrationType: AWS_PROXY, IntegrationUri: !GetAtt EchoFunction.Arn, PayloadFormatVersion: '1.0'}
  EchoRoute:
    Type: AWS::ApiGatewayV2::Route
    Properties:
      ApiId: !Ref HttpApi
      RouteKey: GET /echoeventbody
      OperationName: NotInTheEvent
      Target: !Join [/, [integrations, !Ref EchoIntegration]]
`

// test_start_api.py: TestStartApiWithCloudFormationStage,
// TestStartApiWithMethodsAndResources (methods-resources-api-template.yaml),
// TestCFNTemplateQuickCreatedHttpApiWithDefaultRoute,
// TestCFNTemplateHttpApiWithNormalAndDefaultRoutes,
// TestCFNTemplateWithRestApiAndHttpApiGateways; test_start_api_cdk_template.py
// TestServiceCorsRequests (an OPTIONS MOCK's response parameters).
//
// Beyond SAM CLI: it reads either the SAM resources or the CloudFormation
// ones, and only one AWS::ApiGatewayV2::Api here would be served at a
// time on its path space; samlocal serves them all, and reads the V2
// stage's StageVariables (SAM CLI reads a Variables property).
func TestSAMCLICloudFormationAPIs(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, cfnTemplate, map[string]func([]byte) ([]byte, bool, error){"HelloFunction": returns(hello)})
	cases := []samCase{
		{"TestStartApiWithCloudFormationStage/test_default_stage_name and test_global_stage_variables", call{path: "/root/anyandall"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "Dev", "requestContext", "stage")
				wantField(t, ev, map[string]any{"Stack": "Dev"}, "stageVariables")
				wantField(t, ev, "MyOperationName", "requestContext", "operationName")
			}}},
		{"TestStartApiWithMethodsAndResources/test_proxy_response", call{path: "/root/v1/test"}, expect{status: 200, json: `{"hello":"world"}`}},
		{"TestStartApiWithMethodsAndResources/test_function_not_defined_in_template", call{path: "/root/nofunctionfound"},
			expect{status: 502, json: `{"message":"No function defined for resource method"}`}},
		{"TestServiceCorsRequests/test_cors_options (test_start_api_cdk_template.py)", call{method: "OPTIONS", path: "/"},
			expect{status: 200, header: map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Headers": "Content-Type,X-Amz-Date,Authorization",
				"Access-Control-Allow-Methods": "GET,OPTIONS", "Access-Control-Allow-Credentials": "true", "Access-Control-Max-Age": "510"}}},
		{"TestCFNTemplateQuickCreatedHttpApiWithDefaultRoute/test_default_route_is_created_and_api_is_reachable", call{method: "PATCH", path: "/anypath/anypath"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "2.0", "version")
				wantField(t, ev, "$default", "routeKey")
				wantField(t, ev, "$default", "requestContext", "stage")
				if eventHas(ev, "multiValueHeaders") || eventHas(ev, "pathParameters") {
					t.Errorf("a $default 2.0 event: %v (API Gateway sends no pathParameters; SAM CLI sends any_path)", ev)
				}
			}}},
		{"TestCFNTemplateQuickCreatedHttpApiWithDefaultRoute/test_cors_options", call{method: "OPTIONS", path: "/anypath/anypath", header: map[string]string{"Origin": "https://example.com"}},
			expect{status: 200, header: map[string]string{"Access-Control-Allow-Origin": "https://example.com", "Access-Control-Allow-Headers": "x-apigateway-header",
				"Access-Control-Allow-Methods": "GET,OPTIONS", "Access-Control-Allow-Credentials": "true", "Access-Control-Max-Age": "600"}}},
		{"TestCFNTemplateHttpApiWithNormalAndDefaultRoutes/test_normal_route_is_created_and_api_is_reachable_and_payload_version_is_1", call{path: "/echoeventbody"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) {
				wantField(t, ev, "1.0", "version")
				wantField(t, ev, "prod", "requestContext", "stage")
				wantField(t, ev, map[string]any{"Where": "cfn"}, "stageVariables")
				if !eventHas(ev, "multiValueHeaders") || eventHas(ev, "cookies") || eventHas(ev, "requestContext", "operationName") {
					t.Errorf("a 1.0 event of an HTTP API: %v", ev)
				}
			}}},
	}
	for _, m := range []string{"GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"} {
		cases = append(cases, samCase{"TestStartApiWithMethodsAndResources/test_get_call_with_path_setup_with_any_swagger " + m, call{method: m, path: "/root/anyandall"}, expect{status: 200}})
	}
	runCases(t, g, cases)
}

// test_start_api.py: TestServerlessTemplateWithRestApiAndHttpApiGateways
// (template-rest-and-http-apis.yaml): both kinds on one port.
func TestSAMCLIRestAndHTTPAPIsOnOnePort(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  HttpApiFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: HttpApi, Properties: {Path: /http-api, Method: get}}
  RestApiFunction:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Get: {Type: Api, Properties: {Path: /rest-api, Method: get}}
`, nil)
	runCases(t, g, []samCase{
		{"TestServerlessTemplateWithRestApiAndHttpApiGateways/test_http_api_is_reachable", call{path: "/http-api"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) { wantField(t, ev, "2.0", "version") }}},
		{"TestServerlessTemplateWithRestApiAndHttpApiGateways/test_rest_api_is_reachable", call{path: "/rest-api"},
			expect{status: 200, event: func(t *testing.T, ev map[string]any) { wantField(t, ev, "Prod", "requestContext", "stage") }}},
	})
}
