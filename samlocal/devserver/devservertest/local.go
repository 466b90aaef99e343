package devservertest

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// CutsOffATrickle sends head to the server at addr, then a byte every
// 300 ms, and fails t unless the server closes the connection: its read
// timeout must cut off a client that trickles its body. The 30 s bound only
// catches a server that never does (head should announce a body that takes
// far longer to trickle, e.g. Content-Length: 1000, 300 s).
func CutsOffATrickle(t *testing.T, addr, head string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.Copy(io.Discard, conn) // whatever the server answers, until it closes
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		t.Errorf("a body trickling a byte every 300 ms held the connection for 30 s")
	}
}

// AsAPage sends a POST of body to url as a web page or a program would:
// with Host host and, when not empty, the headers in headers (Origin,
// Sec-Fetch-Site, Authorization). It returns the answer's status, headers
// and body: the local servers' LoopbackOnly refusals are checked by it.
func AsAPage(t *testing.T, url, host string, headers map[string]string, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "text/plain")
	for k, v := range headers {
		if v != "" {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}
