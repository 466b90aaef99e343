package dynamo_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

// A create is one PutItem and no read; a replay reads only where the server
// does not return the old item (dynalite).
func TestCallsPerCreate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		srv          func(testing.TB) *dynamoemu.Server
		getsOnReplay int
	}{
		{dynamoemutest.Moto, 0},
		{dynamoemutest.Dynalite, 1},
	} {
		srv := tc.srv(t)
		t.Run(srv.Name, func(t *testing.T) {
			t.Parallel()
			api := &dynamoemu.Counting{ItemAPI: srv.Client()}
			s := dynamo.New(api, dynamotest.NewTable(t, srv), time.Now)
			ctx := context.Background()
			if created, err := s.Create(ctx, plant.NewPlant{ID: 1, Name: "Fern"}); err != nil || !created {
				t.Fatalf("Create = %v, %v", created, err)
			}
			if p, g, _, _ := api.Counts(); p != 1 || g != 0 {
				t.Errorf("create: %d PutItem, %d GetItem; want 1, 0", p, g)
			}
			if created, err := s.Create(ctx, plant.NewPlant{ID: 1, Name: "Fern"}); err != nil || created {
				t.Fatalf("replay = %v, %v", created, err)
			}
			if p, g, _, _ := api.Counts(); p != 2 || g != tc.getsOnReplay {
				t.Errorf("after replay: %d PutItem, %d GetItem; want 2, %d", p, g, tc.getsOnReplay)
			}
		})
	}
}

// failingServer answers every request with status and body, or with hang
// never, counting them.
func failingServer(t *testing.T, status int, body string, hang bool) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		io.Copy(io.Discard, r.Body) // so that the server notices the client leaving
		if hang {                   // never answer: only the client leaving ends the call
			<-r.Context().Done()
			return
		}
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(status)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestFaults(t *testing.T) {
	t.Parallel()
	throttle := `{"__type":"com.amazonaws.dynamodb.v20120810#ThrottlingException","message":"Rate of requests exceeds the allowed throughput."}`
	provisioned := `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"exceeded"}`
	internal := `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`
	unavailable := `{"__type":"com.amazonaws.dynamodb.v20120810#ServiceUnavailable","message":"Service unavailable"}`
	conflict := `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionConflictException","message":"Transaction is ongoing for the item"}`
	requestLimit := `{"__type":"com.amazonaws.dynamodb.v20120810#RequestLimitExceeded","message":"Throughput exceeds the current throughput limit for your account."}`
	validation := `{"__type":"com.amazon.coral.validate#ValidationException","message":"One or more parameter values were invalid"}`
	noTable := `{"__type":"com.amazonaws.dynamodb.v20120810#ResourceNotFoundException","message":"Requested resource not found"}`
	// A port this test holds and that answers nothing: each connection is
	// closed at once. A closed server's port is free for any other
	// listener of the run to take (one did: a signed emulator front
	// answered the "unreachable" case with UnrecognizedClientException).
	hangUp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hangUp.Close() })
	go func() {
		for {
			c, err := hangUp.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()

	tests := []struct {
		name            string
		status          int
		body            string
		hang            bool   // never answer
		url             string // instead of a failing server
		timeout         time.Duration
		wantUnavailable bool
		wantAttempts    int32 // 0: not checked
	}{
		{name: "throttled", status: 400, body: throttle, wantUnavailable: true, wantAttempts: 3},
		{name: "provisioned throughput exceeded", status: 400, body: provisioned, wantUnavailable: true, wantAttempts: 3},
		{name: "503", status: 503, body: `{}`, wantUnavailable: true, wantAttempts: 3},
		{name: "unreachable", url: "http://" + hangUp.Addr().String(), wantUnavailable: true},
		{name: "slow past the deadline", status: 200, body: `{}`, hang: true, timeout: 200 * time.Millisecond, wantUnavailable: true},
		{name: "request limit exceeded", status: 400, body: requestLimit, wantUnavailable: true, wantAttempts: 3},
		{name: "internal server error", status: 500, body: internal, wantUnavailable: true, wantAttempts: 3},
		{name: "service unavailable", status: 503, body: unavailable, wantUnavailable: true, wantAttempts: 3},
		{name: "500 without a known error", status: 500, body: `{}`, wantUnavailable: true, wantAttempts: 3},
		{name: "502 from a proxy", status: 502, body: `<html>bad gateway</html>`, wantUnavailable: true, wantAttempts: 3},
		{name: "transaction conflict", status: 400, body: conflict, wantUnavailable: true, wantAttempts: 3},
		{name: "validation", status: 400, body: validation, wantAttempts: 1},
		{name: "missing table", status: 400, body: noTable, wantAttempts: 1},
		{name: "malformed body", status: 200, body: `{"Attributes":`, wantAttempts: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			url, attempts := tt.url, (*atomic.Int32)(nil)
			if url == "" {
				var srv *httptest.Server
				srv, attempts = failingServer(t, tt.status, tt.body, tt.hang)
				url = srv.URL
			}
			client := (&dynamoemu.Server{Name: "failing", URL: url}).Client(func(o *dynamodb.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 5 * time.Millisecond })
			})
			s := dynamo.New(client, "plants", time.Now)
			ctx := context.Background()
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			_, err := s.Create(ctx, plant.NewPlant{ID: 1, Name: "x"})
			if err == nil {
				t.Fatal("Create succeeded against a failing server")
			}
			if got := errors.Is(err, plant.ErrUnavailable); got != tt.wantUnavailable {
				t.Errorf("errors.Is(%v, ErrUnavailable) = %v, want %v", err, got, tt.wantUnavailable)
			}
			if errors.Is(err, plant.ErrExists) {
				t.Errorf("a failure became a conflict: %v", err)
			}
			if tt.wantAttempts > 0 && attempts.Load() != tt.wantAttempts {
				t.Errorf("%d attempts, want %d (the SDK's standard retryer)", attempts.Load(), tt.wantAttempts)
			}
			// The slow server never answers, so only the deadline can have
			// ended the call; it must say so.
			if tt.timeout > 0 && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v: want the deadline's error (context.DeadlineExceeded)", err)
			}
		})
	}
}

// answer is one response of a scripted server.
type answer struct {
	status int
	body   string
}

// scriptedServer answers the n-th request with answers[n-1] and every later
// one with an empty PutItem result, counting them.
func scriptedServer(t *testing.T, answers ...answer) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1))
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		a := answer{http.StatusOK, `{}`}
		if i <= len(answers) {
			a = answers[i-1]
		}
		w.WriteHeader(a.status)
		w.Write([]byte(a.body))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// The SDK's standard retryer, not a loop of the store's own, retries what
// DynamoDB says is worth retrying: a TransactionConflictException (which the
// SDK's defaults do not list) and an InternalServerError each end in a
// create after one more PutItem.
func TestTransientFaultThenSuccess(t *testing.T) {
	t.Parallel()
	for name, a := range map[string]answer{
		"transaction conflict":  {400, `{"__type":"com.amazonaws.dynamodb.v20120810#TransactionConflictException","message":"Transaction is ongoing for the item"}`},
		"internal server error": {500, `{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"Internal server error"}`},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv, attempts := scriptedServer(t, a)
			client := (&dynamoemu.Server{Name: "scripted", URL: srv.URL}).Client(func(o *dynamodb.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 5 * time.Millisecond })
			})
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // catches a hang only
			defer cancel()
			created, err := dynamo.New(client, "plants", time.Now).Create(ctx, plant.NewPlant{ID: 1, Name: "x"})
			if err != nil || !created {
				t.Errorf("Create = %v, %v; want true, nil after a retry", created, err)
			}
			if got := attempts.Load(); got != 2 {
				t.Errorf("%d PutItem attempts, want 2", got)
			}
		})
	}
}
