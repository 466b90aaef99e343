package httpapi_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
)

// BenchmarkCreatePlant measures the handler path (decode, validate, store
// call, encode, log line) with a store that does no I/O: with the token
// checked in process (local API) and without (Lambda, behind the authorizer).
func BenchmarkCreatePlant(b *testing.B) {
	noAuth := func(next http.Handler) http.Handler { return next }
	for _, bc := range []struct {
		name string
		mw   httpapi.Middleware
	}{
		{"token=HS256", httpapi.RequireToken(verifier(b, ""))},
		{"token=none", noAuth},
	} {
		b.Run(bc.name, func(b *testing.B) {
			store := &memStore{plants: map[int64]plant.Plant{}}
			h := httpapi.NewHandler(store, slog.New(slog.DiscardHandler), bc.mw)
			authz := "Bearer " + token(b, "", time.Hour)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				i++
				r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(`{"id":`+strconv.Itoa(i)+`,"name":"Monstera deliciosa","tag":"indoor"}`))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Authorization", authz)
				w := httptest.NewRecorder()
				h.ServeHTTP(w, r)
				if w.Code != http.StatusOK {
					b.Fatalf("status %d: %s", w.Code, w.Body)
				}
			}
		})
	}
}
