package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/fixtures"
)

// FuzzProxyEvent feeds arbitrary REST proxy events (as the runtime would
// decode them) through the function: never a panic, never a function error,
// never a 5xx, and always an answer in the contract's shapes.
func FuzzProxyEvent(f *testing.F) {
	for _, fx := range fixtures.CreatePlant() {
		raw, _ := json.Marshal(fx.Event)
		f.Add(raw)
	}
	f.Add([]byte(`{"httpMethod":"POST","path":"/plants","isBase64Encoded":true,"body":"e30="}`))
	f.Add([]byte(`{"httpMethod":"GET","path":"/../plants","headers":{"Content-Type":"application/json"}}`))
	f.Add([]byte(`{}`))
	fn := newFunctionWithStore(nopStore{}, slog.New(slog.DiscardHandler))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var ev events.APIGatewayProxyRequest
		if json.Unmarshal(raw, &ev) != nil {
			return // the runtime would not hand this to the handler
		}
		resp, err := fn.handle(context.Background(), ev)
		if err != nil {
			t.Fatalf("function error %v for %s", err, raw)
		}
		if resp.StatusCode >= 500 || resp.StatusCode < 200 {
			t.Fatalf("status %d for %s: %s", resp.StatusCode, raw, resp.Body)
		}
		method, path := http.MethodPost, "/plants"
		if resp.StatusCode != http.StatusOK {
			method, path = http.MethodGet, "/elsewhere" // any failure is checked as an Error
		}
		apitest.Check(t, method, path, resp.StatusCode, http.Header(resp.MultiValueHeaders), []byte(resp.Body))
	})
}
