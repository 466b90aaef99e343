package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/tools/bootstraps"
	"github.com/plantstore/plantstore/tools/delve"
)

// make start-api DEBUG=CreatePlantFunction: createplant's debug build runs
// under Delve; a breakpoint set from Delve's client in the handler stops a
// request sent through the gateway, and after continue the request is
// answered.
func TestABreakpointStopsCreatePlant(t *testing.T) {
	t.Parallel()
	dlv := delve.Dlv(t, root)
	dir := t.TempDir()
	for fn, bin := range map[string]string{
		"CreatePlantFunction": bootstraps.DebugBootstrap(t, "CreatePlantFunction"),
		"AuthorizerFunction":  bootstraps.Bootstrap(t, "AuthorizerFunction"),
	} {
		if err := os.MkdirAll(filepath.Join(dir, fn), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bin, filepath.Join(dir, fn, "bootstrap")); err != nil {
			t.Fatal(err)
		}
	}
	addr := delve.FreeAddr(t)
	banner := startAPIWith(t, dir, "-debug", "CreatePlantFunction", "-debug-addr", addr, "-dlv", dlv)

	// Bounds that only catch a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type answer struct {
		status int
		body   string
		err    error
	}
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", banner.URL+"/plants", strings.NewReader(`{"id":4242,"name":"Debugged"}`))
		req.Header.Set("Authorization", "Bearer "+banner.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		answered <- answer{status: resp.StatusCode, body: string(b)}
	}()

	c, err := delve.Dial(ctx, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const handler = "github.com/plantstore/plantstore/internal/httpapi.handleCreatePlant.func1"
	if _, err := c.Break(handler); err != nil {
		t.Fatalf("breakpoint at %s: %v", handler, err)
	}
	st, err := c.Continue()
	if err != nil {
		t.Fatal(err)
	}
	if st.Stopped() != handler {
		t.Fatalf("stopped in %q (exited %v), want the breakpoint in %s", st.Stopped(), st.Exited, handler)
	}
	select {
	case a := <-answered:
		t.Fatalf("answered while stopped at the breakpoint: %d %s %v", a.status, a.body, a.err)
	default:
	}
	go c.Continue() // until the next breakpoint or the end of the test
	a := <-answered
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, `"Debugged"`) {
		t.Fatalf("after continue: %d %s %v, want 200 with the plant", a.status, a.body, a.err)
	}
}
