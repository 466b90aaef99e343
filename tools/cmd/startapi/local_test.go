package startapi

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/localserve"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// startQuick runs make start-api's serve on a free port with no bootstraps
// and createplant's store on a closed port (no dynalite): for requests that
// never reach a function. adjust, when not nil, changes the configuration.
func startQuick(t *testing.T, adjust func(*localserve.Config), args ...string) string {
	t.Helper()
	return startQuickOut(t, adjust, args...).Banner.URL
}

// startQuickOut is startQuick that also returns what start-api prints.
func startQuickOut(t *testing.T, adjust func(*localserve.Config), args ...string) *watchtest.Launched {
	t.Helper()
	env := fixtures.Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9"
	raw, _ := json.Marshal(env)
	envFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	shell := apiShell(t)
	lookupEnv := func(k string) (string, bool) { v, ok := shell[k]; return v, ok }
	args = append([]string{"-p", "0", "--build-dir", t.TempDir(), "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(root, "template.yaml"),
		"-n", envFile, "--data-dir", filepath.Join(t.TempDir(), "dynalite")}, args...)
	cfg, err := cli.ServerConfig("start-api", args, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if adjust != nil {
		adjust(&cfg)
	}
	return watchtest.Launch(t, true, func(ctx context.Context, stdout, stderr io.Writer) error {
		return cli.Serve(ctx, "start-api", cfg, lookupEnv, stdout, stderr)
	})
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
			status, header, body := devservertest.AsAPage(t, url+"/plants", tc.host, map[string]string{"Origin": tc.origin}, `{"id":1,"name":"x"}`)
			var e struct {
				Error   int32  `json:"error"`
				Message string `json:"message"`
			}
			if status != tc.status || json.Unmarshal(body, &e) != nil || e.Error != tc.code || e.Message == "" || header.Get("Cache-Control") != "no-store" {
				t.Errorf("Host %s, Origin %q: %d %s, want %d with error %d", tc.host, tc.origin, status, body, tc.status, tc.code)
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
	devservertest.CutsOffATrickle(t, strings.TrimPrefix(url, "http://"), "POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
}
