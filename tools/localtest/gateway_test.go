package localtest

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/gateway"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// These tests hold Plant Store's template.yaml and its functions' rules
// against samlocal's gateway: the parts of the gateway's own tests
// (samlocal/gateway) that need what only this repository has.

var templatePath = srctree.Path("template.yaml")

// lambdas answers each function with a func of the test and counts calls.
type lambdas struct {
	mu     sync.Mutex
	calls  map[string]int
	answer map[string]func(payload []byte) ([]byte, bool, error)
}

func (f *lambdas) Invoke(_ context.Context, fn string, payload []byte) ([]byte, bool, error) {
	f.mu.Lock()
	f.calls[fn]++
	answer := f.answer[fn]
	f.mu.Unlock()
	return answer(payload)
}

func (f *lambdas) count(fn string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[fn]
}

func allow(payload []byte) ([]byte, bool, error) {
	var ev events.APIGatewayCustomAuthorizerRequest
	_ = json.Unmarshal(payload, &ev)
	b, _ := json.Marshal(events.APIGatewayCustomAuthorizerResponse{PrincipalID: "client-1", PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
		Version:   "2012-10-17",
		Statement: []events.IAMPolicyStatement{{Effect: "Allow", Action: []string{"execute-api:Invoke"}, Resource: []string{strings.SplitN(ev.MethodArn, "/", 2)[0] + "/v1/*/*"}}},
	}})
	return b, false, nil
}

func unauthorized([]byte) ([]byte, bool, error) {
	return []byte(`{"errorMessage":"Unauthorized","errorType":"errorString"}`), true, nil
}

func created([]byte) ([]byte, bool, error) {
	return []byte(`{"statusCode":200,"multiValueHeaders":{"Content-Type":["application/json"]},"body":"{\"name\":\"x\"}"}`), false, nil
}

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// newGateway serves template.yaml's PlantsApi with the fake functions.
func newGateway(t *testing.T, authorizer, createplant func([]byte) ([]byte, bool, error)) (*gateway.Gateway, *lambdas, *clock) {
	t.Helper()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		t.Fatal(err)
	}
	f := &lambdas{calls: map[string]int{}, answer: map[string]func([]byte) ([]byte, bool, error){
		"AuthorizerFunction": authorizer, "CreatePlantFunction": createplant,
	}}
	c := &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	g, err := gateway.New(api, f, c.now, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return g, f, c
}

const jwtLike = "Bearer aaa.bbb.ccc"

type answer struct {
	status int
	body   string
}

func send(g http.Handler, method, path, authorization string) answer {
	req := httptest.NewRequest(method, path, strings.NewReader(`{"id":1,"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	return answer{status: rec.Code, body: string(body)}
}
