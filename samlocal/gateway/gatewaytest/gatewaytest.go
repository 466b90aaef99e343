// Package gatewaytest is what the tests of a local API Gateway share, as
// net/http/httptest is net/http's: fake functions that answer as a test
// says and count their calls (Lambdas), a clock the test moves (Clock),
// authorizer and integration answers (Allow, Unauthorized, Created), and
// one request through a gateway (Send).
package gatewaytest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Lambdas answers each function with a func of the test and counts calls.
type Lambdas struct {
	// Otherwise answers a function the test named no answer for.
	Otherwise func(payload []byte) ([]byte, bool, error)

	mu     sync.Mutex
	calls  map[string]int
	events map[string][]byte // the last payload per function
	answer map[string]func(payload []byte) ([]byte, bool, error)
}

// NewLambdas answers each function named in answers with its func.
func NewLambdas(answers map[string]func(payload []byte) ([]byte, bool, error)) *Lambdas {
	return &Lambdas{calls: map[string]int{}, events: map[string][]byte{}, answer: answers}
}

// Invoke is the gateway's call of a function.
func (f *Lambdas) Invoke(_ context.Context, fn string, payload []byte) ([]byte, bool, error) {
	f.mu.Lock()
	f.calls[fn]++
	f.events[fn] = payload
	answer := f.answer[fn]
	f.mu.Unlock()
	if answer == nil {
		answer = f.Otherwise
	}
	return answer(payload)
}

// Count is how many times fn was called.
func (f *Lambdas) Count(fn string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[fn]
}

// Event is the last payload fn was called with.
func (f *Lambdas) Event(fn string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.events[fn]
}

// Allow is a TOKEN authorizer's answer that allows every method of the
// stage v1 of the API it was asked about.
func Allow(payload []byte) ([]byte, bool, error) {
	var ev events.APIGatewayCustomAuthorizerRequest
	_ = json.Unmarshal(payload, &ev)
	return PolicyAnswer("Allow", strings.SplitN(ev.MethodArn, "/", 2)[0]+"/v1/*/*"), false, nil
}

// PolicyAnswer is an authorizer's answer with one statement.
func PolicyAnswer(effect, resource string) []byte {
	b, _ := json.Marshal(map[string]any{
		"principalId":    "client-1",
		"policyDocument": map[string]any{"Version": "2012-10-17", "Statement": []any{map[string]any{"Effect": effect, "Action": "execute-api:Invoke", "Resource": []string{resource}}}},
		"context":        map[string]any{"sub": "client-1"},
	})
	return b
}

// Unauthorized is an authorizer's refusal, the error "Unauthorized".
func Unauthorized([]byte) ([]byte, bool, error) {
	return []byte(`{"errorMessage":"Unauthorized","errorType":"errorString"}`), true, nil
}

// Created is a function's 200 with a JSON body.
func Created([]byte) ([]byte, bool, error) {
	return []byte(`{"statusCode":200,"multiValueHeaders":{"Content-Type":["application/json"]},"body":"{\"name\":\"x\"}"}`), false, nil
}

// Clock is a time that moves only when the test moves it.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock starts at 2026-01-01 UTC.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)} }

// Now is the clock's time.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// JWTLike is a bearer header of a JWT's form that signs nothing.
const JWTLike = "Bearer aaa.bbb.ccc"

// Answer is what a gateway answered, with the Error body's fields.
type Answer struct {
	Status int
	Header http.Header
	Error  int32  `json:"error"`
	Msg    string `json:"message"`
	Body   string `json:"-"`
}

// Send posts a small JSON body to path with authorization as the
// Authorization header ("" for none) and returns the answer.
func Send(g http.Handler, method, path, authorization string) Answer {
	req := httptest.NewRequest(method, path, strings.NewReader(`{"id":1,"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	rec := httptest.NewRecorder()
	g.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Body)
	a := Answer{Status: rec.Code, Header: rec.Header(), Body: string(body)}
	_ = json.Unmarshal(body, &a)
	return a
}
