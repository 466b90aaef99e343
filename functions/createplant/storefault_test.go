package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/plantstore/plantstore/functions/internal/emf"
	"github.com/plantstore/plantstore/functions/internal/emf/emftest"
	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

// TestStoreFaultsThroughTheFunction: a DynamoDB that answers every PutItem
// with an error in DynamoDB's own JSON shape, so that the SDK's
// deserializer, its standard retryer and the store's translation all run.
// What DynamoDB documents as worth retrying (throttling, a transaction in
// flight on the item, its own 5xx) reaches the client as 503/50300 with
// Retry-After after the SDK's retries, and the request's line counts it as
// StoreUnavailable, never in Failures, whose alarm is for bugs. A fault that
// no retry mends (a missing table, an invalid request) stays 500/50000 and
// counts in Failures.
func TestStoreFaultsThroughTheFunction(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		status       int
		errorType    string // DynamoDB's __type
		wantStatus   int
		wantCode     int32
		wantOutcome  string
		wantAttempts int32
	}{
		{"internal server error", 500, "com.amazonaws.dynamodb.v20120810#InternalServerError", 503, 50300, "store_unavailable", 3},
		{"service unavailable", 503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailable", 503, 50300, "store_unavailable", 3},
		{"transaction conflict", 400, "com.amazonaws.dynamodb.v20120810#TransactionConflictException", 503, 50300, "store_unavailable", 3},
		{"throttled", 400, "com.amazonaws.dynamodb.v20120810#ThrottlingException", 503, 50300, "store_unavailable", 3},
		{"missing table", 400, "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException", 500, 50000, "failure", 1},
		{"invalid request", 400, "com.amazon.coral.validate#ValidationException", 500, 50000, "failure", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var attempts atomic.Int32
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				attempts.Add(1)
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/x-amz-json-1.0")
				w.WriteHeader(tt.status)
				w.Write([]byte(`{"__type":"` + tt.errorType + `","message":"injected by the test"}`))
			}))
			defer srv.Close()
			// The SDK's standard retryer with a short backoff, so that three
			// attempts take milliseconds.
			client := (&dynamoemu.Server{Name: "dynamodb", URL: srv.URL}).Client(func(o *dynamodb.Options) {
				o.Retryer = retry.NewStandard(func(so *retry.StandardOptions) { so.MaxBackoff = 5 * time.Millisecond })
			})
			var logs bytes.Buffer
			logger := slog.New(emf.NewHandler(slog.NewJSONHandler(&logs, nil), requestMetrics("PlantStore/test")))
			fn := newFunctionWithStore(dynamo.New(client, "plants", time.Now), logger)
			ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](t, "createplant-valid")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // catches a hang only
			defer cancel()

			resp, err := fn.handle(ctx, ev)
			if err != nil {
				t.Fatal(err)
			}
			header := http.Header(resp.MultiValueHeaders)
			e := apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, header, []byte(resp.Body))
			if resp.StatusCode != tt.wantStatus || e.Error != tt.wantCode {
				t.Errorf("got %d %s, want %d %d", resp.StatusCode, resp.Body, tt.wantStatus, tt.wantCode)
			}
			if got := header.Get("Retry-After"); (tt.wantStatus == 503) != (got == "1") {
				t.Errorf("%d with Retry-After %q", resp.StatusCode, got)
			}
			if strings.Contains(resp.Body, "injected") || strings.Contains(resp.Body, "Exception") || strings.Contains(resp.Body, "InternalServerError") {
				t.Errorf("the answer leaks the store's error: %s", resp.Body)
			}
			if got := attempts.Load(); got != tt.wantAttempts {
				t.Errorf("%d PutItem attempts, want %d (the SDK's standard retryer)", got, tt.wantAttempts)
			}

			got := requestLineMetrics(t, logs.String())
			unavailable, failure := 0.0, 0.0
			if tt.wantCode == 50300 {
				unavailable = 1
			} else {
				failure = 1
			}
			if got["Requests/"+tt.wantOutcome] != 1 || got["StoreUnavailable/"] != unavailable || got["Failures/"] != failure {
				t.Errorf("metrics %v, want Requests/%s 1, StoreUnavailable %v, Failures %v", got, tt.wantOutcome, unavailable, failure)
			}
		})
	}
}

// requestLineMetrics returns the EMF metrics of the one "request" line in
// logs, keyed by name and Outcome ("Requests/created", "Failures/").
func requestLineMetrics(t *testing.T, logs string) map[string]float64 {
	t.Helper()
	var found map[string]float64
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var rec struct{ Msg string }
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "request" {
			continue
		}
		if found != nil {
			t.Fatalf("two request lines:\n%s", logs)
		}
		metrics, err := emftest.Check([]byte(line))
		if err != nil {
			t.Fatalf("not EMF: %v\n%s", err, line)
		}
		found = map[string]float64{}
		for _, m := range metrics {
			found[m.Name+"/"+m.Dimensions["Outcome"]] = m.Value
		}
	}
	if found == nil {
		t.Fatalf("no request line:\n%s", logs)
	}
	return found
}
