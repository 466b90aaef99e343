package devserver

import (
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
)

func TestPort(t *testing.T) {
	t.Parallel()
	for v, want := range map[string]int{"": 3000, "0": 0, "8080": 8080, "65535": 65535} {
		if got, err := Port(func(string) string { return v }, 3000); err != nil || got != want {
			t.Errorf("PORT=%q: %d, %v; want %d", v, got, err, want)
		}
	}
	for _, v := range []string{"http", "-1", "65536", "3000 ", "1e3"} {
		if _, err := Port(func(string) string { return v }, 3000); err == nil || !strings.Contains(err.Error(), "PORT") {
			t.Errorf("PORT=%q: %v, want an error naming PORT", v, err)
		}
	}
}

// The printed token verifies, carries the scope, and the curl line names
// the time as a fresh id.
func TestPrintToken(t *testing.T) {
	t.Parallel()
	secret := []byte("0123456789abcdef0123456789abcdef")
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	var b strings.Builder
	spec := auth.TokenSpec{Issuer: "i", Audience: "a", Subject: "dev", Scope: "plants/write"}
	if err := PrintToken(&b, secret, spec, "http://127.0.0.1:3000", "; note", now); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(b.String(), "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[0], "Token (valid 24h0m0s, scope plants/write; note):") {
		t.Fatalf("banner:\n%s", b.String())
	}
	v, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: "i", Audience: "a", HS256Secret: secret, RequiredScope: "plants/write", Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	if p, err := v.Verify(context.Background(), lines[1]); err != nil || p.Subject != "dev" {
		t.Errorf("the printed token: %+v, %v", p, err)
	}
	if !strings.Contains(lines[3], `{"id":1795435200,`) || !strings.Contains(lines[3], "Bearer "+lines[1]) {
		t.Errorf("curl line %q: want the token and id %d", lines[3], now.Unix())
	}
}

func TestServeStopsCleanly(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, &http.Server{Handler: http.NotFoundHandler()}, ln, &out, "test server") }()
	resp, err := http.Get("http://" + ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cancel()
	if err := <-done; err != nil || out.String() != "test server stopped\n" {
		t.Errorf("Serve = %v, printed %q; want nil and one stopped line", err, out.String())
	}
}
