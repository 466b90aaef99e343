package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/plantstore/plantstore/functions/internal/emf/emftest"
	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

var update = flag.Bool("update", false, "rewrite the golden responses")

func TestMain(m *testing.M) {
	dynamoemutest.Main(m, lambdatest.Cleanup)
}

// seededTable is a fresh table on srv holding the fixtures' seed plant.
func seededTable(t *testing.T, srv *dynamoemu.Server) (*dynamo.Store, string) {
	t.Helper()
	table := dynamotest.NewTable(t, srv)
	store := dynamo.New(srv.Client(), table, time.Now)
	if err := fixtures.Seed(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	return store, table
}

// checkGolden compares a function's response with testdata/<name>.golden.json
// and, for createplant, with the API contract.
func checkGolden(t *testing.T, name string, payload []byte) {
	t.Helper()
	var resp events.APIGatewayProxyResponse
	if err := json.Unmarshal(payload, &resp); err != nil {
		t.Fatalf("%s: response %s: %v", name, payload, err)
	}
	apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, http.Header(resp.MultiValueHeaders), []byte(resp.Body))
	lambdatest.Golden(t, name, payload, *update)
}

// TestFixtures feeds every createplant event through the handler on each
// DynamoDB-compatible server and compares the answers with the goldens.
func TestFixtures(t *testing.T) {
	t.Parallel()
	for _, srv := range []func(testing.TB) *dynamoemu.Server{dynamoemutest.Moto, dynamoemutest.Dynalite} {
		s := srv(t)
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			store, _ := seededTable(t, s)
			fn := newFunctionWithStore(store, slog.New(slog.DiscardHandler))
			for _, f := range fixtures.CreatePlant() {
				ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, f.Name)
				resp, err := fn.handle(context.Background(), ev)
				if err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				b, _ := json.Marshal(resp)
				checkGolden(t, f.Name, b)
			}
			for id, want := range map[int64]string{1: "Fern", 2: "Ficus lyrata", 3: "Aloe", fixtures.SeedID: fixtures.SeedName} {
				if p, err := store.Get(context.Background(), id); err != nil || p.Name != want {
					t.Errorf("stored plant %d = %+v, %v; want %s", id, p, err, want)
				}
			}
			for _, id := range []int64{4, 5, 6, 7} {
				if _, err := store.Get(context.Background(), id); err == nil {
					t.Errorf("plant %d of a rejected request was stored", id)
				}
			}
		})
	}
}

func TestWithoutAuthorizerPrincipalIs401(t *testing.T) {
	t.Parallel()
	fn := newFunctionWithStore(failStore{}, slog.New(slog.DiscardHandler))
	ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, "createplant-valid")
	ev.RequestContext.Authorizer = nil
	resp, _ := fn.handle(context.Background(), ev)
	e := apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, http.Header(resp.MultiValueHeaders), []byte(resp.Body))
	if resp.StatusCode != 401 || e.Error != 40100 {
		t.Errorf("got %d %s, want 401 40100", resp.StatusCode, resp.Body)
	}
}

func TestUnreadableEventIs400(t *testing.T) {
	t.Parallel()
	fn := newFunctionWithStore(failStore{}, slog.New(slog.DiscardHandler))
	ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, "createplant-base64-body")
	ev.Body = "%%% not base64 %%%"
	resp, err := fn.handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	e := apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, http.Header(resp.MultiValueHeaders), []byte(resp.Body))
	if resp.StatusCode != 400 || e.Error != 40001 {
		t.Errorf("got %d %s, want 400 40001", resp.StatusCode, resp.Body)
	}
}

// failStore blocks until the context ends.
type failStore struct{}

func (failStore) Create(ctx context.Context, _ plant.NewPlant) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}

// A store slower than the function's deadline answers 503 before Lambda
// would kill the invocation, and the log line carries the request id and
// the authorizer's principal.
func TestSlowStoreAnswers503BeforeTheDeadline(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	fn := newFunctionWithStore(failStore{}, slog.New(slog.NewJSONHandler(&logs, nil)))
	ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, "createplant-valid")
	// The store never answers; the function's own deadline (Lambda's less
	// deadlineMargin) must end the call while Lambda's deadline is still ahead.
	ctx, cancel := context.WithTimeout(context.Background(), deadlineMargin+300*time.Millisecond)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{AwsRequestID: "req-123"})
	resp, _ := fn.handle(ctx, ev)
	if resp.StatusCode != 503 {
		t.Errorf("got %d, want 503", resp.StatusCode)
	}
	if ctx.Err() != nil {
		t.Errorf("the answer came after Lambda's deadline: %v", ctx.Err())
	}
	for _, want := range []string{`"requestId":"req-123"`, `"subject":"fixture-client"`, `"status":503`} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log %s lacks %s", logs.String(), want)
		}
	}
}

func TestLoadConfig(t *testing.T) {
	t.Parallel()
	if _, err := loadConfig(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "TABLE_NAME") {
		t.Errorf("loadConfig without TABLE_NAME: %v, want an error naming it", err)
	}
	c, err := loadConfig(func(k string) string { return map[string]string{"TABLE_NAME": "t"}[k] })
	if err != nil || c.tableName != "t" {
		t.Errorf("loadConfig = %+v, %v", c, err)
	}
}

// TestBootstrap runs the real binary, built by `make build-CreatePlantFunction`,
// on the test Runtime API against each server, with every fixture.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	bin := lambdatest.Bootstrap(t, "CreatePlantFunction")
	for _, srv := range []func(testing.TB) *dynamoemu.Server{dynamoemutest.Moto, dynamoemutest.Dynalite} {
		s := srv(t)
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			store, table := seededTable(t, s)
			fn := lambdatest.Launch(t, bin, append(s.Env(), "TABLE_NAME="+table))
			for _, f := range fixtures.CreatePlant() {
				_, raw := lambdatest.Event[events.APIGatewayProxyRequest](t, f.Name)
				res := fn.Invoke(t, raw, 10*time.Second)
				if res.Error != nil {
					t.Fatalf("%s: %s\nfunction output:\n%s", f.Name, res.Error, fn.Output.String())
				}
				checkGolden(t, f.Name, res.Payload)
			}
			if p, err := store.Get(context.Background(), 2); err != nil || p.Name != "Ficus lyrata" {
				t.Errorf("plant 2 after the binary created it: %+v, %v", p, err)
			}
		})
	}
	t.Run("init error", func(t *testing.T) {
		t.Parallel()
		lambdatest.InitFails(t, bin, nil, "TABLE_NAME is required")
	})
}

// TestHostileEventsKeepTheLogJSON runs the real binary on events whose
// method, path or domain cannot make a request: each answers 400/40001, and
// every line the function writes is one JSON object (no forged line).
func TestHostileEventsKeepTheLogJSON(t *testing.T) {
	t.Parallel()
	bin := lambdatest.Bootstrap(t, "CreatePlantFunction")
	// No store is reached: every event below is refused before the handler.
	fn := lambdatest.Launch(t, bin, []string{"TABLE_NAME=plants", "AWS_REGION=us-east-1", "AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:9", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test"})
	forged := `{"level":"ERROR","msg":"forged"}`
	valid, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, "createplant-valid")
	for name, change := range map[string]func(*events.APIGatewayProxyRequest){
		"newline in path":      func(e *events.APIGatewayProxyRequest) { e.Path = "/plants\n" + forged },
		"newline in method":    func(e *events.APIGatewayProxyRequest) { e.HTTPMethod = "POST\n" + forged },
		"carriage return":      func(e *events.APIGatewayProxyRequest) { e.Path = "/plants\r" + forged },
		"space in domain":      func(e *events.APIGatewayProxyRequest) { e.RequestContext.DomainName = "evil host\n" + forged },
		"NUL in path":          func(e *events.APIGatewayProxyRequest) { e.Path = "/plants\x00" },
		"method not a token":   func(e *events.APIGatewayProxyRequest) { e.HTTPMethod = "PO(ST)" },
		"path without a slash": func(e *events.APIGatewayProxyRequest) { e.Path = "plants\n" },
	} {
		ev := valid
		change(&ev)
		raw, _ := json.Marshal(ev)
		res := fn.Invoke(t, raw, 10*time.Second)
		if res.Error != nil {
			t.Fatalf("%s: %s\nfunction output:\n%s", name, res.Error, fn.Output.String())
		}
		var resp events.APIGatewayProxyResponse
		if err := json.Unmarshal(res.Payload, &resp); err != nil {
			t.Fatalf("%s: %s: %v", name, res.Payload, err)
		}
		e := apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, http.Header(resp.MultiValueHeaders), []byte(resp.Body))
		if resp.StatusCode != 400 || e.Error != 40001 {
			t.Errorf("%s: got %d %s, want 400 40001", name, resp.StatusCode, resp.Body)
		}
	}
	fn.Stop() // and so wait for every line it wrote
	lines := strings.Split(strings.TrimSpace(fn.Output.String()), "\n")
	for _, line := range lines {
		var obj map[string]any
		if err := json.Unmarshal([]byte(line), &obj); err != nil {
			t.Errorf("a log line is not a JSON object: %q (%v)", line, err)
		} else if obj["msg"] == "forged" {
			t.Errorf("a forged line reached the log: %q", line)
		}
	}
	if len(lines) < 7 {
		t.Errorf("%d log lines, want one per refused event:\n%s", len(lines), fn.Output.String())
	}
}

// TestMetricsThroughTheBootstrap runs the real binary on dynalite: each
// request's line is a valid EMF document (emftest), its Outcome tells
// created, replayed, conflict and invalid apart, and the line carries the
// gateway's request id beside Lambda's.
func TestMetricsThroughTheBootstrap(t *testing.T) {
	t.Parallel()
	bin := lambdatest.Bootstrap(t, "CreatePlantFunction")
	s := dynamoemutest.Dynalite(t)
	_, table := seededTable(t, s)
	fn := lambdatest.Launch(t, bin, append(s.Env(), "TABLE_NAME="+table, "METRICS_NAMESPACE=PlantStore/test"))
	for _, name := range []string{"createplant-valid", "createplant-valid", "createplant-conflict", "createplant-bad-json"} {
		_, raw := lambdatest.Event[events.APIGatewayProxyRequest](t, name)
		if res := fn.Invoke(t, raw, 10*time.Second); res.Error != nil {
			t.Fatalf("%s: %s\n%s", name, res.Error, fn.Output.String())
		}
	}
	fn.Stop() // and so every line is written
	var outcomes []string
	for _, line := range strings.Split(strings.TrimSpace(fn.Output.String()), "\n") {
		var rec struct {
			Msg, RequestID, APIRequestID string
		}
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "request" {
			continue
		}
		metrics, err := emftest.Check([]byte(line))
		if err != nil {
			t.Errorf("not EMF: %v\n%s", err, line)
			continue
		}
		if rec.APIRequestID != "c6af9ac6-7b61-11e6-9a41-93e8deadbeef" || rec.RequestID == "" || !strings.Contains(line, `"traceId":"Root=`) {
			t.Errorf("the line does not carry the gateway's request id, Lambda's and the trace: %s", line)
		}
		seen := map[string]float64{}
		for _, m := range metrics {
			if m.Namespace != "PlantStore/test" {
				t.Errorf("namespace %q", m.Namespace)
			}
			key := m.Name
			if o, ok := m.Dimensions["Outcome"]; ok {
				key += "/" + o
				if m.Name == "Requests" {
					outcomes = append(outcomes, o)
				}
			}
			seen[key] = m.Value
		}
		if seen["Requests"] != 1 || seen["Duration"] <= 0 {
			t.Errorf("stack-wide Requests %v, Duration %v: %s", seen["Requests"], seen["Duration"], line)
		}
	}
	if got := strings.Join(outcomes, ","); got != "created,replayed,conflict,invalid_json" {
		t.Errorf("outcomes %s, want created,replayed,conflict,invalid_json\n%s", got, fn.Output.String())
	}
}

// The metrics of each answer: store trouble and failures apart, so that
// their alarms tell an outage from a bug.
func TestRequestMetrics(t *testing.T) {
	t.Parallel()
	metricsOf := requestMetrics("PlantStore/test")
	for _, tc := range []struct {
		attrs                []slog.Attr
		outcome              string
		unavailable, failure float64
	}{
		{[]slog.Attr{slog.Int("status", 200), slog.String("outcome", "created")}, "created", 0, 0},
		{[]slog.Attr{slog.Int("status", 503), slog.Int("code", 50300)}, "store_unavailable", 1, 0},
		{[]slog.Attr{slog.Int("status", 500), slog.Int("code", 50000)}, "failure", 0, 1},
		{[]slog.Attr{slog.Int("status", 499), slog.String("outcome", "canceled")}, "canceled", 0, 0},
		{[]slog.Attr{slog.Int("status", 400), slog.Int("code", 40006)}, "invalid_value", 0, 0},
	} {
		r := slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)
		r.AddAttrs(append(tc.attrs, slog.Float64("durationMs", 1.5))...)
		var b bytes.Buffer
		r.AddAttrs(metricsOf(r)...)
		slog.New(slog.NewJSONHandler(&b, nil)).Handler().Handle(context.Background(), r)
		metrics, err := emftest.Check(b.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", b.String(), err)
		}
		got := map[string]float64{}
		for _, m := range metrics {
			got[m.Name+"/"+m.Dimensions["Outcome"]] = m.Value
		}
		if got["Requests/"+tc.outcome] != 1 || got["StoreUnavailable/"] != tc.unavailable || got["Failures/"] != tc.failure {
			t.Errorf("%s: %v", tc.outcome, got)
		}
	}
	r := slog.NewRecord(time.Now(), slog.LevelInfo, "something else", 0)
	if metricsOf(r) != nil || requestMetrics("")(slog.NewRecord(time.Now(), slog.LevelInfo, "request", 0)) != nil {
		t.Error("metrics on a line that is not a request's, or without a namespace")
	}
}

// Through a custom domain (template.yaml's CustomDomain, the API mapped at
// the domain's root), API Gateway sends the resource's path, /plants, with
// the domain in the request context and no stage in requestContext.path:
// the adapter hands the handler /plants, and the create succeeds.
func TestCustomDomainEvent(t *testing.T) {
	t.Parallel()
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "p.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	fn := newFunctionWithStore(store, slog.New(slog.DiscardHandler))
	ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, "createplant-valid")
	ev.Path = "/plants"
	ev.RequestContext.DomainName = "api.example.com"
	ev.RequestContext.DomainPrefix = "api"
	ev.RequestContext.Path = "/plants"
	ev.Headers["Host"] = "api.example.com"
	resp, err := fn.handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, http.Header(resp.MultiValueHeaders), []byte(resp.Body))
	if resp.StatusCode != 200 {
		t.Errorf("through the custom domain: %d %s, want 200", resp.StatusCode, resp.Body)
	}
	if p, err := store.Get(context.Background(), 1); err != nil || p.Name != "Fern" {
		t.Errorf("stored %+v, %v", p, err)
	}
}
