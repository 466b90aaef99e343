package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/devserver"
)

func short(c *config) {
	c.timeouts = devserver.Timeouts{ReadHeader: 300 * time.Millisecond, Read: 600 * time.Millisecond, Write: time.Second,
		Idle: 300 * time.Millisecond, MaxHeaderBytes: 4 << 10}
	c.request = time.Second
}

func dial(t *testing.T, url string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin fails t unless the server closes c within d.
func closedWithin(t *testing.T, c net.Conn, d time.Duration, what string) {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(d))
	if _, err := io.Copy(io.Discard, c); err != nil {
		t.Errorf("%s: the server kept the connection for %v: %v", what, d, err)
	}
}

func TestSlowAndIdleClientsAreCutOff(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STORE_PATH": filepath.Join(t.TempDir(), "p.db")}, short)
	defer s.stop()

	// Headers that never end (slowloris).
	c := dial(t, s.url)
	io.WriteString(c, "POST /plants HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n")
	closedWithin(t, c, 15*time.Second, "unfinished headers")

	// A body that never arrives.
	c = dial(t, s.url)
	io.WriteString(c, "POST /plants HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer "+s.token+"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"id\":")
	closedWithin(t, c, 15*time.Second, "unfinished body")

	// An idle keep-alive connection.
	c = dial(t, s.url)
	io.WriteString(c, "POST /nope HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 404 {
		t.Fatalf("first request on the connection: %v %v", resp, err)
	}
	closedWithin(t, c, 15*time.Second, "idle keep-alive")

	// Headers over the limit are refused before any handler runs.
	c = dial(t, s.url)
	io.WriteString(c, "POST /plants HTTP/1.1\r\nHost: localhost\r\nX-Big: "+strings.Repeat("a", 8<<10)+"\r\n\r\n")
	resp, err = http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("oversized headers: %v %v, want 431", resp, err)
	}
}

// Many slow clients at once do not keep a good one out. Their headers
// never end and the header timeout is ten minutes, so served one after
// another they would hold the server for 200 x 10 minutes: an answer at
// all proves they are served side by side, and go test's -timeout reports
// the hang otherwise.
func TestSlowClientsDoNotStarveOthers(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STORE_PATH": filepath.Join(t.TempDir(), "p.db")}, short, func(c *config) {
		c.timeouts.ReadHeader, c.timeouts.Read = 10*time.Minute, 10*time.Minute
	})
	defer s.stop()
	for range 200 {
		c := dial(t, s.url)
		defer c.Close() // before the stop, which would wait for them
		io.WriteString(c, "POST /plants HTTP/1.1\r\nHost: localhost\r\n")
	}
	if status, _, body := s.post(t, "POST", "/plants", "Bearer "+s.token, `{"id":1,"name":"x"}`); status != 200 {
		t.Fatalf("got %d %s", status, body)
	}
}

func TestBindsToLoopbackUnlessTold(t *testing.T) {
	t.Parallel()
	c, err := loadConfig(env(map[string]string{}))
	if err != nil || c.host != "127.0.0.1" {
		t.Errorf("default host %q, %v; want 127.0.0.1", c.host, err)
	}
	if _, err := loadConfig(env(map[string]string{"HOST": "example.com"})); err == nil {
		t.Error("HOST=example.com accepted; want an IP address")
	}
	if c, err := loadConfig(env(map[string]string{"HOST": "0.0.0.0"})); err != nil || c.host != "0.0.0.0" {
		t.Errorf("HOST=0.0.0.0: %q, %v", c.host, err)
	}
}

// The header limit is 16 KiB plus the 4 KiB of slack net/http adds to
// MaxHeaderBytes: 19 KiB of headers pass, 21 KiB get 431.
func TestHeaderLimitIsAbout20KiB(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STORE_PATH": filepath.Join(t.TempDir(), "plants.db")})
	defer s.stop()
	for _, tc := range []struct {
		size    int
		refused bool
	}{{19 << 10, false}, {21 << 10, true}} {
		req, _ := http.NewRequest(http.MethodPost, s.url+"/plants", strings.NewReader(`{"id":1,"name":"x"}`))
		req.Header.Set("X-Pad", strings.Repeat("a", tc.size))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.StatusCode == http.StatusRequestHeaderFieldsTooLarge; got != tc.refused {
			t.Errorf("%d bytes of headers: status %d, want refused = %v", tc.size, resp.StatusCode, tc.refused)
		}
	}
}
