package gateway

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/samlocal/gateway/gatewaytest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

const templatePath = "testdata/template.yaml"

// The fakes and the request of every gateway test (gatewaytest).
type (
	fakeLambdas = gatewaytest.Lambdas
	clock       = gatewaytest.Clock
)

var (
	allow, unauthorized, created = gatewaytest.Allow, gatewaytest.Unauthorized, gatewaytest.Created
	policyAnswer                 = gatewaytest.PolicyAnswer
	send                         = gatewaytest.Send
)

const jwtLike = gatewaytest.JWTLike

// newGateway serves template (template.yaml when "") with the fake functions.
func newGateway(t *testing.T, template string, authorizer, createplant func([]byte) ([]byte, bool, error)) (*Gateway, *fakeLambdas, *clock) {
	t.Helper()
	if template == "" {
		raw, err := os.ReadFile(templatePath)
		if err != nil {
			t.Fatal(err)
		}
		template = string(raw)
	}
	tpl, err := samtemplate.Parse([]byte(template))
	if err != nil {
		t.Fatal(err)
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		t.Fatal(err)
	}
	f := gatewaytest.NewLambdas(map[string]func([]byte) ([]byte, bool, error){"AuthorizerFunction": authorizer, "CreatePlantFunction": createplant})
	c := gatewaytest.NewClock()
	g, err := New(api, f, c.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return g, f, c
}

func TestAuthorizerAnswersAreCachedPerToken(t *testing.T) {
	t.Parallel()
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		g, f, c := newGateway(t, "", unauthorized, created)
		for i := range 2 {
			if a := send(g, "POST", "/plants", jwtLike); a.Status != 401 || a.Error != 40100 || a.Header.Get("WWW-Authenticate") != "Bearer" {
				t.Errorf("request %d: %d %s, want 401/40100 with the template's headers", i, a.Status, a.Body)
			}
		}
		if n := f.Count("AuthorizerFunction"); n != 1 {
			t.Errorf("authorizer called %d times for one token, want 1 (the second answer from the cache)", n)
		}
		c.Advance(301 * time.Second) // past ReauthorizeEvery
		send(g, "POST", "/plants", jwtLike)
		if n := f.Count("AuthorizerFunction"); n != 2 {
			t.Errorf("authorizer called %d times after the TTL, want 2", n)
		}
	})
	t.Run("allowed", func(t *testing.T) {
		t.Parallel()
		g, f, _ := newGateway(t, "", allow, created)
		for i := range 3 {
			if a := send(g, "POST", "/plants", jwtLike); a.Status != 200 {
				t.Errorf("request %d: %d %s", i, a.Status, a.Body)
			}
		}
		if a, c := f.Count("AuthorizerFunction"), f.Count("CreatePlantFunction"); a != 1 || c != 3 {
			t.Errorf("authorizer %d, createplant %d calls; want 1 and 3", a, c)
		}
	})
}

func TestTheValidationExpressionSparesTheAuthorizer(t *testing.T) {
	t.Parallel()
	g, f, _ := newGateway(t, "", allow, created)
	for _, h := range []string{"", "Bearer not-a-jwt", "Basic aaa.bbb.ccc", "Bearer aaa.bbb.ccc extra"} {
		if a := send(g, "POST", "/plants", h); a.Status != 401 || a.Error != 40100 {
			t.Errorf("Authorization %q: %d %s, want 401/40100", h, a.Status, a.Body)
		}
	}
	if n := f.Count("AuthorizerFunction"); n != 0 {
		t.Errorf("authorizer called %d times for headers the expression refuses", n)
	}
}

func TestPolicyIsEvaluatedAgainstTheMethodARN(t *testing.T) {
	t.Parallel()
	arn := "arn:aws:execute-api:us-east-1:123456789012:local/v1/POST/plants"
	for _, tc := range []struct {
		name   string
		answer []byte
		status int
		code   int32
	}{
		{"allow exact", policyAnswer("Allow", arn), 200, 0},
		{"allow stage wildcard", policyAnswer("Allow", "arn:aws:execute-api:us-east-1:123456789012:local/v1/*/*"), 200, 0},
		{"deny", policyAnswer("Deny", "arn:aws:execute-api:us-east-1:123456789012:local/v1/*/*"), 403, 40300},
		{"allow elsewhere", policyAnswer("Allow", "arn:aws:execute-api:us-east-1:123456789012:other/v1/*/*"), 403, 40300},
		{"no principal", []byte(`{"policyDocument":{"Statement":[]}}`), 500, 50000},
		{"not JSON", []byte(`nope`), 500, 50000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			answer := tc.answer
			g, f, _ := newGateway(t, "", func([]byte) ([]byte, bool, error) { return answer, false, nil }, created)
			a := send(g, "POST", "/plants", jwtLike)
			if a.Status != tc.status || a.Error != tc.code {
				t.Errorf("%d %s, want %d (error %d)", a.Status, a.Body, tc.status, tc.code)
			}
			if tc.status == 200 {
				var ev events.APIGatewayProxyRequest
				if err := json.Unmarshal(f.Event("CreatePlantFunction"), &ev); err != nil {
					t.Fatal(err)
				}
				if ev.RequestContext.Authorizer["principalId"] != "client-1" || ev.RequestContext.Authorizer["sub"] != "client-1" {
					t.Errorf("requestContext.authorizer = %v, want the principal and the context", ev.RequestContext.Authorizer)
				}
			}
		})
	}
}

func TestFailuresOfTheFunctions(t *testing.T) {
	t.Parallel()
	crash := func([]byte) ([]byte, bool, error) {
		return []byte(`{"errorType":"Runtime.ExitError","errorMessage":"exit status 2"}`), true, nil
	}
	t.Run("authorizer crashes: AUTHORIZER_FAILURE", func(t *testing.T) {
		t.Parallel()
		g, _, _ := newGateway(t, "", crash, created)
		if a := send(g, "POST", "/plants", jwtLike); a.Status != 500 || a.Error != 50000 {
			t.Errorf("%d %s, want 500/50000 (DEFAULT_5XX's body)", a.Status, a.Body)
		}
	})
	t.Run("createplant crashes: 502", func(t *testing.T) {
		t.Parallel()
		g, _, _ := newGateway(t, "", allow, crash)
		if a := send(g, "POST", "/plants", jwtLike); a.Status != 502 || a.Error != 50000 {
			t.Errorf("%d %s, want 502 with DEFAULT_5XX's body", a.Status, a.Body)
		}
	})
	t.Run("createplant answers garbage: 502", func(t *testing.T) {
		t.Parallel()
		g, _, _ := newGateway(t, "", allow, func([]byte) ([]byte, bool, error) { return []byte(`{"statusCode":"x"}`), false, nil })
		if a := send(g, "POST", "/plants", jwtLike); a.Status != 502 {
			t.Errorf("%d %s, want 502", a.Status, a.Body)
		}
	})
}

func TestTheProxyEvent(t *testing.T) {
	t.Parallel()
	g, f, _ := newGateway(t, "", allow, created)
	req := httptest.NewRequest("POST", "/plants?x=1&x=2", strings.NewReader(`{"id":1}`))
	req.Header.Set("Authorization", jwtLike)
	req.Header.Add("X-Many", "a")
	req.Header.Add("X-Many", "b")
	g.ServeHTTP(httptest.NewRecorder(), req)
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(f.Event("CreatePlantFunction"), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Resource != "/plants" || ev.Path != "/plants" || ev.HTTPMethod != "POST" || ev.Body != `{"id":1}` || ev.IsBase64Encoded ||
		ev.RequestContext.Stage != "v1" || ev.RequestContext.Path != "/v1/plants" || ev.RequestContext.ResourcePath != "/plants" ||
		strings.Join(ev.MultiValueHeaders["X-Many"], ",") != "a,b" || ev.Headers["X-Many"] != "b" ||
		strings.Join(ev.MultiValueQueryStringParameters["x"], ",") != "1,2" || ev.QueryStringParameters["x"] != "2" {
		t.Errorf("event = %+v", ev)
	}
}

func TestStageThrottle(t *testing.T) {
	t.Parallel()
	g, _, c := newGateway(t, "", unauthorized, created) // template: rate 50/s, burst 100
	statuses := map[int]int{}
	for range 130 { // all at one instant of the frozen clock
		a := send(g, "POST", "/plants", "Bearer nope")
		statuses[a.Status]++
		if a.Status == 429 && (a.Error != 42900 || a.Header.Get("Retry-After") != "1") {
			t.Errorf("429 answer %s %v, want 42900 with Retry-After", a.Body, a.Header)
		}
	}
	if statuses[401] != 100 || statuses[429] != 30 {
		t.Errorf("statuses %v, want 100 let through (the burst) and 30 throttled", statuses)
	}
	c.Advance(time.Second) // 50 tokens back
	if a := send(g, "POST", "/plants", "Bearer nope"); a.Status != 401 {
		t.Errorf("after a second: %d, want the request let through", a.Status)
	}
}

// What start-api answers comes from template.yaml: change the template and
// the answers change, with no Go edited.
func TestTheTemplateDecides(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.NewReplacer(
		"Path: /plants", "Path: /flowers",
		`'{"error":40400,"message":"no such route; the API has POST /plants"}'`, `'{"error":40400,"message":"changed in the template"}'`,
		"ReauthorizeEvery: 300", "ReauthorizeEvery: 0",
		"Default: 100\n", "Default: 2\n", // ThrottlingBurstLimit
	).Replace(string(raw))
	if changed == string(raw) {
		t.Fatal("the replacements found nothing in template.yaml")
	}
	g, f, _ := newGateway(t, changed, unauthorized, created)
	if a := send(g, "POST", "/plants", jwtLike); a.Status != 404 || a.Msg != "changed in the template" {
		t.Errorf("old route: %d %s, want the template's new 404 body", a.Status, a.Body)
	}
	for i := range 2 {
		if a := send(g, "POST", "/flowers", jwtLike); a.Status != 401 {
			t.Errorf("new route, request %d: %d %s, want 401 from the authorizer", i, a.Status, a.Body)
		}
	}
	if a := send(g, "POST", "/flowers", jwtLike); a.Status != 429 {
		t.Errorf("third request with burst 2: %d, want 429", a.Status)
	}
	if n := f.Count("AuthorizerFunction"); n != 2 {
		t.Errorf("authorizer called %d times with ReauthorizeEvery 0, want 2 (no cache)", n)
	}
}

// BenchmarkServeHTTP is what the local gateway itself adds to a request:
// route, throttle, the cached authorizer answer, the proxy event both ways.
func BenchmarkServeHTTP(b *testing.B) {
	raw, err := os.ReadFile(templatePath)
	if err != nil {
		b.Fatal(err)
	}
	tpl, err := samtemplate.Parse(raw)
	if err != nil {
		b.Fatal(err)
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		b.Fatal(err)
	}
	api.RateLimit = 0 // no throttle in the loop
	f := gatewaytest.NewLambdas(map[string]func([]byte) ([]byte, bool, error){"AuthorizerFunction": allow, "CreatePlantFunction": created})
	g, err := New(api, f, time.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if a := send(g, "POST", "/plants", jwtLike); a.Status != 200 {
			b.Fatal(a.Status)
		}
	}
}

// A client that has gone away does not cancel the function's invocation.
func TestInvocationsOutliveTheirClient(t *testing.T) {
	t.Parallel()
	var seen error = context.Canceled
	g, f, _ := newGateway(t, "", allow, created)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	inv := invokerFunc(func(ctx context.Context, fn string, payload []byte) ([]byte, bool, error) {
		if fn == "CreatePlantFunction" {
			seen = ctx.Err()
		}
		return f.Invoke(ctx, fn, payload)
	})
	g.invoker = inv
	req := httptest.NewRequestWithContext(ctx, "POST", "/plants", strings.NewReader(`{"id":1,"name":"x"}`))
	req.Header.Set("Authorization", jwtLike)
	g.ServeHTTP(httptest.NewRecorder(), req)
	if seen != nil {
		t.Errorf("the invocation's context: %v, want it not canceled with the client", seen)
	}
}

type invokerFunc func(ctx context.Context, fn string, payload []byte) ([]byte, bool, error)

func (f invokerFunc) Invoke(ctx context.Context, fn string, payload []byte) ([]byte, bool, error) {
	return f(ctx, fn, payload)
}

// Requests without a token spend the stage's throttle as any other does
// (docs/security.md, "Throttling and anonymous clients"): after a burst of
// them, a valid caller in the same instant is throttled.
func TestAnonymousClientsSpendTheStageBurst(t *testing.T) {
	t.Parallel()
	g, f, _ := newGateway(t, "", allow, created) // template: burst 100
	for i := range 100 {
		if a := send(g, "POST", "/plants", ""); a.Status != 401 {
			t.Fatalf("anonymous request %d: %d, want 401", i, a.Status)
		}
	}
	if a := send(g, "POST", "/plants", jwtLike); a.Status != 429 || a.Error != 42900 {
		t.Errorf("a valid caller after 100 anonymous requests: %d %s, want 429/42900", a.Status, a.Body)
	}
	if n := f.Count("AuthorizerFunction"); n != 0 {
		t.Errorf("the authorizer ran %d times for requests without a token", n)
	}
}
