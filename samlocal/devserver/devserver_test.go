package devserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
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
func TestRunServesUntilStopped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	var out strings.Builder
	urls := make(chan string, 1)
	done := make(chan error, 1)
	srv := Server{Name: "test server", Addr: "127.0.0.1:0", Handler: http.NotFoundHandler(), Timeouts: APITimeouts(), Logger: slog.New(slog.DiscardHandler)}
	go func() { done <- srv.Run(ctx, &out, func(url string) error { urls <- url; return nil }) }()
	url := <-urls
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET %s: %d, want the handler's 404", url, resp.StatusCode)
	}
	// A head over MaxHeaderBytes (16 KiB, plus net/http's 4 KiB of slack) is refused.
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("X-Big", strings.Repeat("a", 24<<10))
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("a 24 KiB header: %v, %v; want 431", resp, err)
	} else {
		resp.Body.Close()
	}
	cancel()
	if err := <-done; err != nil || out.String() != "test server stopped\n" {
		t.Errorf("Run = %v, printed %q; want nil and one stopped line", err, out.String())
	}
}

// A banner that cannot be printed stops Run before it serves, and frees the port.
func TestRunStopsWhenTheBannerFails(t *testing.T) {
	t.Parallel()
	var addr string
	srv := Server{Addr: "127.0.0.1:0", Handler: http.NotFoundHandler(), Timeouts: ToolTimeouts(), Logger: slog.New(slog.DiscardHandler)}
	err := srv.Run(context.Background(), io.Discard, func(url string) error {
		addr = strings.TrimPrefix(url, "http://")
		return errors.New("no terminal")
	})
	if err == nil || err.Error() != "no terminal" {
		t.Fatalf("Run = %v, want the banner's error", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port %s is still held: %v", addr, err)
	}
	ln.Close()
}
