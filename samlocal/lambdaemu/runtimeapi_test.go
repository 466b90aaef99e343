package lambdaemu

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Only a caller that knows the server's path prefix (the bootstrap, through
// AWS_LAMBDA_RUNTIME_API) receives events or may answer them.
func TestOnlyThePrefixedPathIsServed(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hostPort, secret, ok := strings.Cut(s.Addr(), "/")
	if !ok || len(secret) < 26 {
		t.Fatalf("Addr() = %q, want host:port/<random prefix>", s.Addr())
	}
	other, _ := Start()
	defer other.Close()
	if _, otherSecret, _ := strings.Cut(other.Addr(), "/"); otherSecret == secret {
		t.Fatalf("two servers share the prefix %q", secret)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan Result, 1)
	go func() {
		r, _ := s.Invoke(ctx, []byte(`{"authorizationToken":"Bearer secret-token"}`), 10*time.Second)
		done <- r
	}()
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, intruder := range []string{
		"http://" + hostPort + "/2018-06-01/runtime/invocation/next",
		"http://" + hostPort + "/" + strings.ToLower(secret) + "x/2018-06-01/runtime/invocation/next",
		"http://" + hostPort + "/" + secret[:len(secret)-1] + "/2018-06-01/runtime/invocation/next",
	} {
		if code, body := get(intruder); code != 404 || strings.Contains(body, "secret-token") {
			t.Errorf("GET %s: %d %q, want 404 and no event", intruder, code, body)
		}
	}
	code, body := get("http://" + s.Addr() + "/2018-06-01/runtime/invocation/next")
	if code != 200 || !strings.Contains(body, "secret-token") {
		t.Fatalf("the function's poll: %d %q", code, body)
	}
	// An intruder cannot answer for the function either.
	resp, err := client.Post("http://"+hostPort+"/2018-06-01/runtime/invocation/any/response", "application/json", strings.NewReader(`{"principalId":"x"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("an intruder's answer: %d, want 404", resp.StatusCode)
	}
	select {
	case r := <-done:
		t.Fatalf("the invocation ended with %+v before the function answered", r)
	default:
	}
	// The function itself answers under the prefix.
	resp, err = client.Post("http://"+s.Addr()+"/2018-06-01/runtime/invocation/"+requestID(t, s)+"/response", "application/json", strings.NewReader(`"ok"`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if r := <-done; string(r.Payload) != `"ok"` {
		t.Errorf("the invocation's answer: %+v", r)
	}
}

// requestID is the id of the one pending invocation.
func requestID(t *testing.T, s *Server) string {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	for id := range s.pending {
		return id
	}
	t.Fatal("no pending invocation")
	return ""
}
