package main

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/internal/httpapi"
)

func TestSmokePassesAgainstTheRealHandler(t *testing.T) {
	t.Parallel()
	secret := []byte("smoke-test-secret-smoke-test-secret!")
	v, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: "i", Audience: "a", HS256Secret: secret})
	if err != nil {
		t.Fatal(err)
	}
	store, err := boltstore.Open(filepath.Join(t.TempDir(), "p.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	srv := httptest.NewServer(httpapi.NewHandler(store, slog.New(slog.DiscardHandler), httpapi.RequireToken(v)))
	defer srv.Close()
	tok, _ := auth.NewHS256Token(secret, auth.TokenSpec{Issuer: "i", Audience: "a", Subject: "s", IssuedAt: time.Now(), TTL: time.Minute})
	var out bytes.Buffer
	if err := run(context.Background(), []string{"smoke", "-url", srv.URL}, func(string) string { return tok }, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if strings.Count(out.String(), "ok  ") != 8 {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestSmokeFailsAgainstAWrongServer(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"name":"whatever"}`)) // 200 to everything, no auth
	}))
	defer srv.Close()
	var out bytes.Buffer
	if err := run(context.Background(), []string{"smoke", "-url", srv.URL}, func(string) string { return "t" }, &out); err == nil {
		t.Fatalf("smoke passed against a server that checks nothing:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "FAIL no token") {
		t.Errorf("output does not show the failed 401 check:\n%s", out.String())
	}
}
