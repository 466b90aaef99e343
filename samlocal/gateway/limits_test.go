package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// countingReader is a body that counts what the gateway read of it.
type countingReader struct {
	n    atomic.Int64
	left int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	n := int(min(int64(len(p)), c.left))
	for i := range p[:n] {
		p[i] = 'x'
	}
	c.left -= int64(n)
	c.n.Add(int64(n))
	return n, nil
}

// API Gateway's quotas, applied as it states them: the request line and
// headers at most 10,240 bytes, the payload at most 10 MB, the integration
// at most 29 s; and a TOKEN authorizer decides before any body is read.
func TestQuotas(t *testing.T) {
	t.Parallel()
	t.Run("an unauthenticated client's body is never read", func(t *testing.T) {
		t.Parallel()
		g, f, _ := newGateway(t, "", unauthorized, created)
		for _, authorization := range []string{"", "Bearer not-a-jwt", jwtLike} {
			body := &countingReader{left: MaxPayload}
			req := httptest.NewRequest("POST", "/plants", body)
			if authorization != "" {
				req.Header.Set("Authorization", authorization)
			}
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			if rec.Code != 401 || body.n.Load() != 0 {
				t.Errorf("Authorization %q: %d after reading %d body bytes, want 401 after none", authorization, rec.Code, body.n.Load())
			}
		}
		if n := f.Count("CreatePlantFunction"); n != 0 {
			t.Errorf("createplant called %d times", n)
		}
	})
	t.Run("headers over 10240 bytes", func(t *testing.T) {
		t.Parallel()
		g, f, _ := newGateway(t, "", allow, created)
		huge := "Bearer " + strings.Repeat("a", 200<<10) + ".b.c"
		if a := send(g, "POST", "/plants", huge); a.Status != 431 || a.Error != 40000 {
			t.Errorf("a 200 KB token: %d %s, want 431/40000", a.Status, a.Body)
		}
		req := httptest.NewRequest("POST", "/plants", strings.NewReader(`{}`))
		req.Header.Set("Authorization", jwtLike)
		req.Header.Set("X-Padding", strings.Repeat("p", MaxHeaderBytes-headerBytes(req)-len("X-Padding: ")))
		if n := headerBytes(req); n != MaxHeaderBytes {
			t.Fatalf("test request has %d header bytes, want %d", n, MaxHeaderBytes)
		}
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != 200 {
			t.Errorf("exactly 10240 bytes: %d, want 200", rec.Code)
		}
		req.Header.Set("X-Padding", req.Header.Get("X-Padding")+"p")
		rec = httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != 431 {
			t.Errorf("10241 bytes: %d, want 431", rec.Code)
		}
		if n := f.Count("AuthorizerFunction"); n != 1 {
			t.Errorf("authorizer called %d times, want 1 (never for an oversized request)", n)
		}
	})
	t.Run("payload over 10 MB", func(t *testing.T) {
		t.Parallel()
		g, f, _ := newGateway(t, "", allow, created)
		req := httptest.NewRequest("POST", "/plants", &countingReader{left: MaxPayload + 1})
		req.Header.Set("Authorization", jwtLike)
		rec := httptest.NewRecorder()
		g.ServeHTTP(rec, req)
		if rec.Code != 400 || !strings.Contains(rec.Body.String(), "40003") {
			t.Errorf("10 MB + 1: %d %s, want the template's REQUEST_TOO_LARGE (400/40003)", rec.Code, rec.Body)
		}
		if n := f.Count("CreatePlantFunction"); n != 0 {
			t.Errorf("createplant called %d times", n)
		}
	})
	t.Run("a proxy event over Lambda's 6 MB", func(t *testing.T) {
		t.Parallel()
		g, f, _ := newGateway(t, "", allow, created)
		post := func(bodyBytes int) *httptest.ResponseRecorder {
			req := httptest.NewRequest("POST", "/plants", strings.NewReader(strings.Repeat("x", bodyBytes)))
			req.Header.Set("Authorization", jwtLike)
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req)
			return rec
		}
		// The event around a body of x's is the body's length plus a fixed
		// overhead (the request id, times and client address keep their lengths).
		if rec := post(1000); rec.Code != 200 {
			t.Fatalf("a 1000-byte body: %d", rec.Code)
		}
		overhead := len(f.Event("CreatePlantFunction")) - 1000
		fits := MaxInvokePayload - overhead
		if rec := post(fits); rec.Code != 200 || len(f.Event("CreatePlantFunction")) != MaxInvokePayload {
			t.Fatalf("an event of exactly %d bytes: %d after an event of %d bytes, want it invoked", MaxInvokePayload, rec.Code, len(f.Event("CreatePlantFunction")))
		}
		for _, n := range []int{fits + 1, 8 << 20, MaxPayload} {
			rec := post(n)
			if rec.Code != 400 || !strings.Contains(rec.Body.String(), "40003") || rec.Header().Get("X-Amzn-Errortype") != "REQUEST_TOO_LARGE" {
				t.Errorf("a %d-byte body (event %d bytes): %d %s, want the template's REQUEST_TOO_LARGE (400/40003)", n, n+overhead, rec.Code, rec.Body)
			}
		}
		if n := f.Count("CreatePlantFunction"); n != 2 {
			t.Errorf("createplant called %d times, want 2 (never with an event over 6 MB)", n)
		}
		// Without a template response, API Gateway's own: 413 Request Too Long.
		g.apis[0].Responses = nil
		if rec := post(fits + 1); rec.Code != 413 || strings.TrimSpace(rec.Body.String()) != `{"message":"Request Too Long"}` {
			t.Errorf("without gateway responses: %d %s, want 413 {\"message\":\"Request Too Long\"}", rec.Code, rec.Body)
		}
	})
	t.Run("integration timeout", func(t *testing.T) {
		t.Parallel()
		g, _, _ := newGateway(t, "", allow, created)
		g.invoker = stuck{next: g.invoker}
		g.IntegrationTimeout = 50 * time.Millisecond
		if a := send(g, "POST", "/plants", jwtLike); a.Status != 504 || a.Error != 50000 {
			t.Errorf("a function that never answers: %d %s, want 504 with the DEFAULT_5XX body", a.Status, a.Body)
		}
	})
	t.Run("slow body", func(t *testing.T) {
		t.Parallel()
		g, _, _ := newGateway(t, "", allow, created)
		g.BodyTimeout = 200 * time.Millisecond
		srv := httptest.NewServer(g)
		defer srv.Close()
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":", jwtLike)
		// The rest of the body never comes; the answer must, without the
		// client doing anything more (the bound here only stops a hang).
		_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatalf("no answer to a stalled body: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode != 408 {
			t.Errorf("a stalled body: %d, want 408", resp.StatusCode)
		}
	})
}

// stuck is an invoker whose createplant never answers before ctx ends.
type stuck struct{ next Invoker }

func (s stuck) Invoke(ctx context.Context, fn string, payload []byte) ([]byte, bool, error) {
	if fn != "CreatePlantFunction" {
		return s.next.Invoke(ctx, fn, payload)
	}
	<-ctx.Done()
	return nil, false, ctx.Err()
}
