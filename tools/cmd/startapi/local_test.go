package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/devserver"
	"github.com/plantstore/plantstore/tools/bootstraps"
	"github.com/plantstore/plantstore/tools/fixtures"
	"github.com/plantstore/plantstore/tools/localserve"
	"github.com/plantstore/plantstore/tools/proc"
)

// startQuick runs make start-api's serve on a free port with no bootstraps
// and createplant's store on a closed port (no dynalite): for requests that
// never reach a function. adjust, when not nil, changes the configuration.
func startQuick(t *testing.T, adjust func(*localserve.Config), args ...string) string {
	t.Helper()
	env := fixtures.Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9"
	raw, _ := json.Marshal(env)
	envFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	shell := map[string]string{"PORT": "0"}
	lookupEnv := func(k string) (string, bool) { v, ok := shell[k]; return v, ok }
	var stdout, stderr bootstraps.Output
	args = append([]string{"startapi", "-bootstraps", t.TempDir(), "-template", filepath.Join(root, "template.yaml"),
		"-env", envFile, "-data", filepath.Join(t.TempDir(), "dynalite")}, args...)
	c := command()
	cfg, err := c.Parse(args, lookupEnv, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if adjust != nil {
		adjust(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Serve(ctx, cfg, lookupEnv, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("serve did not return within 30s of cancel")
		}
	})
	deadline := time.After(60 * time.Second)
	for {
		var banner proc.Banner
		for _, line := range strings.Split(stdout.String(), "\n") {
			banner.Line(line)
		}
		if banner.Complete(true) {
			return banner.URL
		}
		select {
		case err := <-done:
			t.Fatalf("serve returned before it listened: %v\n%s", err, stderr.String())
		case <-deadline:
			t.Fatalf("no banner within 60s:\n%s\n%s", stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// A web page cannot reach the gateway: not by DNS rebinding (its own name
// in Host, where it could read the answers and spend tokens signed with the
// secret of events/env.json) and not by a simple POST with its Origin. Both
// get 403 in the Error shape of the template's DEFAULT_4XX (40000), before
// the route or the authorizer; programs on this machine, and a Host named
// by -allow-host, reach the gateway (401 here, without a token).
func TestWebPagesAreRefused(t *testing.T) {
	t.Parallel()
	url := startQuick(t, nil, "-allow-host", "devbox.test")
	port := url[strings.LastIndex(url, ":")+1:]
	for _, tc := range []struct {
		name, host, origin string
		status             int
		code               int32
	}{
		{"DNS rebinding", "rebind.example:" + port, "", 403, 40000},
		{"a simple POST from a page elsewhere", "127.0.0.1:" + port, "https://evil.example", 403, 40000},
		{"a program on loopback", "127.0.0.1:" + port, "", 401, 40100},
		{"an allowed Host", "devbox.test:" + port, "", 401, 40100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", url+"/plants", strings.NewReader(`{"id":1,"name":"x"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Host = tc.host
			req.Header.Set("Content-Type", "text/plain")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Error   int32  `json:"error"`
				Message string `json:"message"`
			}
			if resp.StatusCode != tc.status || json.Unmarshal(body, &e) != nil || e.Error != tc.code || e.Message == "" || resp.Header.Get("Cache-Control") != "no-store" {
				t.Errorf("Host %s, Origin %q: %d %s, want %d with error %d", tc.host, tc.origin, resp.StatusCode, body, tc.status, tc.code)
			}
		})
	}
}

// A client that sends its body a byte every 300 ms is cut off once the read
// timeout passes (1 s here; devserver.ToolTimeouts in make start-api), also
// when the gateway refuses it without reading the body (no token): net/http
// reads what is left of a small body before it answers.
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	url := startQuick(t, func(c *localserve.Config) {
		c.Timeouts = devserver.Timeouts{ReadHeader: time.Second, Read: time.Second, Idle: time.Second}
	})
	cutOff(t, strings.TrimPrefix(url, "http://"), "POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
}

// cutOff sends head, then a byte every 300 ms, and fails t unless the server
// closes the connection. The 30 s bound only catches a server that never
// does: the servers under test read for 1 s.
func cutOff(t *testing.T, addr, head string) {
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
