package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"
)

const adapterTemplate = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Http: {Type: HttpApi, Properties: {Path: '/products/{sku}', Method: post}}
        Rest: {Type: Api, Properties: {Path: '/rest/{sku}', Method: post}}
`

// The events are what the Lambda/net/http seam of Go functions reads
// unchanged: aws-lambda-go's event types decode them, and
// aws-lambda-go-api-proxy's adapters (the v2 one for an HTTP API, the v1
// one for a REST API) turn them into the request the client sent.
func TestTheProxyLibraryReadsTheEvents(t *testing.T) {
	t.Parallel()
	var seen *http.Request
	var seenBody string
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r
		b, _ := io.ReadAll(r.Body)
		seenBody = string(b)
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "s1"})
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, "made "+r.PathValue("sku"))
	})
	mux := http.NewServeMux()
	mux.Handle("POST /products/{sku}", handler)
	mux.Handle("POST /rest/{sku}", handler)
	g, _ := serveTemplate(t, adapterTemplate, map[string]func([]byte) ([]byte, bool, error){
		"Fn": func(payload []byte) ([]byte, bool, error) {
			var version struct {
				Version string `json:"version"`
			}
			_ = json.Unmarshal(payload, &version)
			var out any
			var err error
			if version.Version == "2.0" {
				var ev events.APIGatewayV2HTTPRequest
				if err := json.Unmarshal(payload, &ev); err != nil {
					return nil, true, err
				}
				out, err = httpadapter.NewV2(mux).ProxyWithContext(context.Background(), ev)
			} else {
				var ev events.APIGatewayProxyRequest
				if err := json.Unmarshal(payload, &ev); err != nil {
					return nil, true, err
				}
				out, err = httpadapter.New(mux).ProxyWithContext(context.Background(), ev)
			}
			if err != nil {
				return nil, true, err
			}
			b, _ := json.Marshal(out)
			return b, false, nil
		},
	})
	for _, path := range []string{"/products/MON%201", "/rest/MON%201"} {
		t.Run(path, func(t *testing.T) {
			rec := call{method: "POST", path: path + "?color=green&color=red&size=s", body: `{"n":1}`, header: map[string]string{
				"Content-Type": "application/json", "Cookie": "a=1; b=2", "X-Trace": "t1",
			}}.do(g)
			if rec.Code != 201 || rec.Body.String() != "made MON 1" || rec.Header().Get("Content-Type") != "text/plain" || !strings.Contains(rec.Header().Get("Set-Cookie"), "session=s1") {
				t.Errorf("answer %d %q %v", rec.Code, rec.Body, rec.Header())
			}
			if seen == nil {
				t.Fatal("the handler never ran")
			}
			if seen.URL.Path != strings.ReplaceAll(path, "%20", " ") || seen.URL.Query()["size"][0] != "s" || seenBody != `{"n":1}` ||
				seen.Header.Get("X-Trace") != "t1" || seen.Header.Get("Content-Type") != "application/json" {
				t.Errorf("request %s %s %v body %q", seen.Method, seen.URL, seen.Header, seenBody)
			}
			if got := strings.Join(seen.URL.Query()["color"], ","); got != "green,red" {
				t.Errorf("query color %q", got)
			}
			if c, err := seen.Cookie("b"); err != nil || c.Value != "2" {
				t.Errorf("cookie b: %v %v (cookies %q)", c, err, seen.Header.Values("Cookie"))
			}
		})
	}
}

// Routing as API Gateway routes, where SAM CLI's Werkzeug rules and API
// Gateway agree or where the gateway follows API Gateway (route.go).
func TestRouting(t *testing.T) {
	t.Parallel()
	g, _ := serveTemplate(t, `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Me: {Type: Api, Properties: {Path: /users/me, Method: get}}
        User: {Type: Api, Properties: {Path: '/users/{id}', Method: get}}
        Files: {Type: Api, Properties: {Path: '/users/{id}/files/{proxy+}', Method: get}}
        Any: {Type: Api, Properties: {Path: '/a/{proxy+}', Method: get}}
        C: {Type: Api, Properties: {Path: '/a/{id}/c', Method: get}}
        Slash: {Type: Api, Properties: {Path: /slash/, Method: get}}
        Greedy: {Type: Api, Properties: {Path: '/p/{proxy+}', Method: get}}
`, nil)
	path := func(want string, params map[string]any) expect {
		return expect{status: 200, event: func(t *testing.T, ev map[string]any) {
			wantField(t, ev, want, "resource")
			if params != nil {
				wantField(t, ev, params, "pathParameters")
			}
		}}
	}
	runCases(t, g, []samCase{
		{"a literal beats a variable", call{path: "/users/me"}, path("/users/me", nil)},
		{"a variable takes one segment", call{path: "/users/42"}, path("/users/{id}", map[string]any{"id": "42"})},
		{"a greedy variable takes the rest", call{path: "/users/42/files/a/b.txt"}, path("/users/{id}/files/{proxy+}", map[string]any{"id": "42", "proxy": "a/b.txt"})},
		{"a variable beats a greedy one", call{path: "/a/1/c"}, path("/a/{id}/c", map[string]any{"id": "1"})},
		{"the greedy one takes what the other does not", call{path: "/a/1/d"}, path("/a/{proxy+}", map[string]any{"proxy": "1/d"})},
		{"one trailing slash is ignored", call{path: "/users/42/"}, path("/users/{id}", map[string]any{"id": "42"})},
		{"a route's trailing slash too", call{path: "/slash"}, path("/slash/", nil)},
		{"%20 is decoded in a parameter", call{path: "/users/a%20b"}, path("/users/{id}", map[string]any{"id": "a b"})},
		{"%2F stays inside its segment", call{path: "/users/a%2Fb"}, path("/users/{id}", map[string]any{"id": "a/b"})},
		{"UTF-8 is decoded", call{path: "/users/%E2%9C%93"}, path("/users/{id}", map[string]any{"id": "✓"})},
		{"a greedy variable needs a segment", call{path: "/p/"}, expect{status: 403}},
		{"an empty segment is no parameter", call{path: "/users//files/x"}, expect{status: 403}},
		{"paths are case-sensitive", call{path: "/USERS/me"}, expect{status: 403}},
		{"HEAD is not GET", call{method: "HEAD", path: "/users/me"}, expect{status: 403}},
	})
}

// Answers the gateway refuses to pass as they are: SAM CLI's 502s for
// what API Gateway calls a malformed Lambda proxy response.
func TestMalformedAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, answer string
		status       int
	}{
		{"not JSON", `nope`, 502},
		{"a list", `[1]`, 502},
		{"statusCode a word", `{"statusCode":"abc"}`, 502},
		{"statusCode negative", `{"statusCode":-1}`, 502},
		{"statusCode beyond HTTP", `{"statusCode":1000}`, 502},
		{"statusCode a float", `{"statusCode":201.7}`, 201},
		{"isBase64Encoded a number", `{"statusCode":200,"isBase64Encoded":1}`, 502},
		{"isBase64Encoded \"True\"", `{"statusCode":200,"isBase64Encoded":"True","body":"aGk="}`, 200},
		{"multiValueHeaders not lists", `{"statusCode":200,"multiValueHeaders":{"A":"b"}}`, 502},
		{"an unknown key on a REST API", `{"statusCode":200,"extra":1}`, 502},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g, _ := serveTemplate(t, restTemplate, map[string]func([]byte) ([]byte, bool, error){"HelloWorldFunction": returns(tc.answer)})
			if rec := (call{path: "/anyandall"}).do(g); rec.Code != tc.status {
				t.Errorf("%s: %d %s, want %d", tc.answer, rec.Code, rec.Body, tc.status)
			}
		})
	}
	t.Run("a body that is neither text nor binary for the API", func(t *testing.T) {
		t.Parallel()
		g, l := serveTemplate(t, restTemplate, nil)
		if rec := (call{method: "POST", path: "/echoeventbody", body: "\xff\xfe", header: map[string]string{"Content-Type": "text/plain"}}).do(g); rec.Code != 502 || l.Count("EchoEventFunction") != 0 {
			t.Errorf("%d, function ran %d times; want 502 without it (LAS _request_handler)", rec.Code, l.Count("EchoEventFunction"))
		}
	})
	t.Run("a binary body of an HTTP API is base64", func(t *testing.T) {
		t.Parallel()
		g, _ := serveTemplate(t, httpTemplate, nil)
		rec := call{method: "GET", path: "/x", body: "\xff\xfe", header: map[string]string{"Content-Type": "application/octet-stream"}}.do(g)
		expect{status: 200, event: func(t *testing.T, ev map[string]any) {
			wantField(t, ev, "//4=", "body")
			wantField(t, ev, true, "isBase64Encoded")
		}}.check(t, rec)
	})
}
