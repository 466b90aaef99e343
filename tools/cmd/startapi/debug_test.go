package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/tools/bootstraps"
	"github.com/plantstore/plantstore/tools/delve"
	"github.com/plantstore/plantstore/tools/emulator"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/watch/watchtest"
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

// make start-api DEBUG=CreatePlantFunction WATCH=1: after a save, the
// function is rebuilt as a debug build and the next invocation starts a new
// Delve session on the same address, where a breakpoint stops the new code.
func TestDebugSurvivesARebuild(t *testing.T) {
	t.Parallel()
	dlv := delve.Dlv(t, root)
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		emulator.Dynalite(t)
	}
	tree := watchtest.CopyTree(t)
	boots := t.TempDir()
	if out, err := localfn.Build(tree, boots, []string{"AuthorizerFunction", "CreatePlantFunction"}, "CreatePlantFunction"); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	addr := delve.FreeAddr(t)
	var stdout, stderr watchtest.Output
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := []string{"startapi", "-watch", "-bootstraps", boots, "-template", filepath.Join(tree, "template.yaml"),
		"-env", filepath.Join(tree, "events", "env.json"), "-data", filepath.Join(t.TempDir(), "dynalite"),
		"-debug", "CreatePlantFunction", "-debug-addr", addr, "-dlv", dlv}
	go func() {
		done <- run(ctx, args, func(k string) (string, bool) { return map[string]string{"PORT": "0"}[k], k == "PORT" }, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	banner := stdout.Banner(t)
	if !strings.Contains(stdout.String(), "Debugging CreatePlantFunction: Delve listens on "+addr) {
		t.Errorf("start-api does not say where Delve listens:\n%s", stdout.String())
	}
	// Bounds that only catch a hang.
	wait, stopWaiting := context.WithTimeout(context.Background(), 3*time.Minute)
	defer stopWaiting()
	send := func(body string) <-chan string {
		answered := make(chan string, 1)
		go func() {
			req, _ := http.NewRequestWithContext(wait, "POST", banner.URL+"/plants", strings.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+banner.Token)
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				answered <- err.Error()
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			answered <- fmt.Sprintf("%d %s", resp.StatusCode, b)
		}()
		return answered
	}
	session := func(breakAt string) *delve.Client {
		c, err := delve.Dial(wait, addr)
		if err != nil {
			t.Fatal(err)
		}
		if breakAt != "" {
			if _, err := c.Break(breakAt); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}

	first := send(`{"id":1,"name":}`)
	c := session("")
	go c.Continue()
	if a := <-first; !strings.HasPrefix(a, "400 ") || !strings.Contains(a, "the body is not valid JSON") {
		t.Fatalf("before the rebuild: %s", a)
	}
	c.Close()

	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`, `"the body is no JSON (at byte %d)"`)
	stdout.WaitFor(t, "; ready", 1)

	second := send(`{"id":1,"name":}`)
	const handler = "github.com/plantstore/plantstore/internal/httpapi.handleCreatePlant.func1"
	c = session(handler)
	defer c.Close()
	st, err := c.Continue()
	if err != nil {
		t.Fatal(err)
	}
	if st.Stopped() != handler {
		t.Fatalf("after the rebuild: stopped in %q, want the breakpoint in %s\n%s", st.Stopped(), handler, stdout.String())
	}
	go c.Continue()
	if a := <-second; !strings.HasPrefix(a, "400 ") || !strings.Contains(a, "the body is no JSON") {
		t.Fatalf("after the rebuild: %s, want the new code's 400", a)
	}
}
