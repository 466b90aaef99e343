package dynamo_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

// fault is what the proxy does to one request.
type fault int

const (
	pass        fault = iota // forward to the server
	hang                     // answer nothing until the client gives up
	lostAnswer               // forward, then drop the connection: the write happened, the answer is lost
	reset                    // reset the connection without forwarding
	throttle                 // ThrottlingException
	provisioned              // ProvisionedThroughputExceededException
	internal                 // InternalServerError (500)
	txConflict               // TransactionConflictException (400)
	malformed                // 200 with a body that is not JSON
)

// faultProxy sits between the SDK and a real server and injects faults by
// plan, which sees the operation (e.g. "PutItem") and its 1-based count.
type faultProxy struct {
	*httptest.Server
	target *url.URL
	plan   func(op string, n int) fault
	mu     sync.Mutex
	counts map[string]int
	log    []string
}

func newFaultProxy(t *testing.T, target string, plan func(op string, n int) fault) *faultProxy {
	t.Helper()
	u, _ := url.Parse(target)
	p := &faultProxy{target: u, plan: plan, counts: map[string]int{}}
	p.Server = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.Close)
	return p
}

func (p *faultProxy) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	op := r.Header.Get("X-Amz-Target")
	op = op[strings.LastIndex(op, ".")+1:]
	p.mu.Lock()
	p.counts[op]++
	f := p.plan(op, p.counts[op])
	p.log = append(p.log, op)
	p.mu.Unlock()
	apiError := func(status int, typ string) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		w.Write([]byte(`{"__type":"com.amazonaws.dynamodb.v20120810#` + typ + `","message":"injected"}`))
	}
	switch f {
	case hang:
		<-r.Context().Done()
		return
	case reset:
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.(*net.TCPConn).SetLinger(0)
		conn.Close()
		return
	case throttle:
		apiError(400, "ThrottlingException")
		return
	case provisioned:
		apiError(400, "ProvisionedThroughputExceededException")
		return
	case internal:
		apiError(500, "InternalServerError")
		return
	case txConflict:
		apiError(400, "TransactionConflictException")
		return
	case malformed:
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Write([]byte(`{"Attributes": <html>`))
		return
	}
	req, _ := http.NewRequestWithContext(r.Context(), r.Method, p.target.String()+r.URL.Path, bytes.NewReader(body))
	req.Header = r.Header.Clone()
	req.Host = r.Host // the Host the client signed
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		w.WriteHeader(http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(resp.Body)
	if f == lostAnswer {
		conn, _, _ := w.(http.Hijacker).Hijack()
		conn.Close()
		return
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(answer)
}

func (p *faultProxy) count(op string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[op]
}

// faultyService is the handler on a DynamoDB store that reaches the real
// server through the proxy, with the SDK's standard retryer (its backoff
// shortened where fast is given, so that retries are quick to test).
func faultyService(t *testing.T, plan func(op string, n int) fault, fast bool) (http.Handler, *faultProxy, *dynamo.Store) {
	t.Helper()
	srv := dynamoemutest.Moto(t)
	table := dynamotest.NewTable(t, srv)
	proxy := newFaultProxy(t, srv.URL, plan)
	client := (&dynamoemu.Server{Name: "proxy", URL: proxy.URL, Credentials: srv.Credentials}).Client(func(o *dynamodb.Options) {
		if fast {
			o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 10 * time.Millisecond })
		}
	})
	store := dynamo.New(client, table, time.Now)
	direct := dynamo.New(srv.Client(), table, time.Now)
	noAuth := func(next http.Handler) http.Handler { return next }
	return httpapi.NewHandler(store, slog.New(slog.DiscardHandler), noAuth), proxy, direct
}

// post sends one create with a deadline, as the local API and the Lambda do.
func post(t *testing.T, h http.Handler, body string, deadline time.Duration) (int, apitest.Error) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	ctx, cancel := context.WithTimeout(r.Context(), deadline)
	defer cancel()
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	resp := w.Result()
	b, _ := io.ReadAll(resp.Body)
	e := apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, resp.Header, b)
	if strings.Contains(string(b), "injected") || strings.Contains(string(b), "Exception") {
		t.Errorf("the answer leaks the store's error: %s", b)
	}
	return resp.StatusCode, e
}

func TestFaultsThroughAProxy(t *testing.T) {
	t.Parallel()
	always := func(f fault) func(string, int) fault {
		return func(op string, _ int) fault {
			if op == "PutItem" {
				return f
			}
			return pass
		}
	}
	tests := []struct {
		name     string
		plan     func(string, int) fault
		status   int
		code     int32
		attempts int // PutItems the proxy saw; 0: not checked
	}{
		{"throttled", always(throttle), 503, httpapi.CodeUnavailable, 3},
		{"provisioned throughput exceeded", always(provisioned), 503, httpapi.CodeUnavailable, 3},
		{"connection reset", always(reset), 503, httpapi.CodeUnavailable, 3},
		{"internal server error", always(internal), 503, httpapi.CodeUnavailable, 3},
		{"transaction conflict", always(txConflict), 503, httpapi.CodeUnavailable, 3},
		{"malformed answer", always(malformed), 500, httpapi.CodeInternal, 1},
		{"throttled once, then fine", func(op string, n int) fault {
			if op == "PutItem" && n == 1 {
				return throttle
			}
			return pass
		}, 200, 0, 2},
		{"transaction conflict once, then fine", func(op string, n int) fault {
			if op == "PutItem" && n == 1 {
				return txConflict
			}
			return pass
		}, 200, 0, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, proxy, _ := faultyService(t, tt.plan, true)
			status, e := post(t, h, `{"id":1,"name":"Fern"}`, 10*time.Second)
			if status != tt.status || e.Error != tt.code {
				t.Errorf("got %d %d, want %d %d", status, e.Error, tt.status, tt.code)
			}
			if tt.attempts > 0 && proxy.count("PutItem") != tt.attempts {
				t.Errorf("%d PutItem attempts, want %d", proxy.count("PutItem"), tt.attempts)
			}
		})
	}
}

// With the SDK's own backoff, the request's deadline bounds what a
// throttled or hanging store can take. A hanging call is never answered, so
// only the deadline can end it: an answer at all is the proof, and a
// missing one is a hang that go test's -timeout reports with every
// goroutine. A throttled store gets the standard retryer's 3 attempts at
// most.
func TestDeadlineBoundsRetriesAndSlowness(t *testing.T) {
	t.Parallel()
	for name, f := range map[string]fault{"throttled": throttle, "hanging": hang} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			h, proxy, _ := faultyService(t, func(op string, _ int) fault {
				if op == "PutItem" {
					return f
				}
				return pass
			}, false)
			status, e := post(t, h, `{"id":1,"name":"Fern"}`, 700*time.Millisecond)
			if status != 503 || e.Error != httpapi.CodeUnavailable {
				t.Errorf("got %d %d, want 503 50300", status, e.Error)
			}
			if n := proxy.count("PutItem"); n < 1 || n > 3 {
				t.Errorf("%d PutItem attempts, want 1 to 3 (the standard retryer's)", n)
			}
		})
	}
}

// A write whose answer is lost is retried (by the SDK, or by the client after
// a 503) and ends as a replay, never as a second item; another plant under
// the id is a conflict.
func TestLostAnswers(t *testing.T) {
	t.Parallel()
	t.Run("SDK retry", func(t *testing.T) {
		t.Parallel()
		h, proxy, direct := faultyService(t, func(op string, n int) fault {
			if op == "PutItem" && n == 1 {
				return lostAnswer
			}
			return pass
		}, true)
		if status, e := post(t, h, `{"id":7,"name":"Fern","tag":"green"}`, 10*time.Second); status != 200 {
			t.Fatalf("got %d %d, want 200 (a replay of the write whose answer was lost)", status, e.Error)
		}
		if proxy.count("PutItem") != 2 {
			t.Errorf("%d PutItems, want 2", proxy.count("PutItem"))
		}
		checkStored(t, direct, 7, "Fern")
	})
	t.Run("client retry after 503", func(t *testing.T) {
		t.Parallel()
		var lose atomic.Bool
		lose.Store(true)
		h, _, direct := faultyService(t, func(op string, n int) fault {
			if op == "PutItem" && lose.Load() {
				return lostAnswer
			}
			return pass
		}, true)
		if status, _ := post(t, h, `{"id":8,"name":"Fern"}`, 10*time.Second); status != 503 {
			t.Fatalf("every answer lost: got %d, want 503", status)
		}
		checkStored(t, direct, 8, "Fern") // the write happened all the same
		lose.Store(false)
		if status, _ := post(t, h, `{"id":8,"name":"Fern"}`, 10*time.Second); status != 200 {
			t.Errorf("the client's retry: got %d, want 200 (replay)", status)
		}
		if status, e := post(t, h, `{"id":8,"name":"Ivy"}`, 10*time.Second); status != 400 || e.Error != httpapi.CodeConflict {
			t.Errorf("another plant under the id: got %d %d, want 400 40009", status, e.Error)
		}
		checkStored(t, direct, 8, "Fern")
	})
}

func checkStored(t *testing.T, s *dynamo.Store, id int64, name string) {
	t.Helper()
	p, err := s.Get(context.Background(), id)
	if err != nil || p.Name != name {
		t.Errorf("stored %d = %+v, %v; want %s", id, p, err, name)
	}
}

func TestUnreachableStore(t *testing.T) {
	t.Parallel()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	client := (&dynamoemu.Server{Name: "gone", URL: "http://" + addr}).Client(func(o *dynamodb.Options) {
		o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 10 * time.Millisecond })
	})
	h := httpapi.NewHandler(dynamo.New(client, "plants", time.Now), slog.New(slog.DiscardHandler), func(n http.Handler) http.Handler { return n })
	if status, e := post(t, h, `{"id":1,"name":"Fern"}`, 5*time.Second); status != 503 || e.Error != httpapi.CodeUnavailable {
		t.Errorf("got %d %d, want 503 50300", status, e.Error)
	}
	if _, err := dynamo.New(client, "plants", time.Now).Create(context.Background(), plant.NewPlant{ID: 1, Name: "x"}); !errors.Is(err, plant.ErrUnavailable) {
		t.Errorf("Create: %v, want ErrUnavailable", err)
	}
}
