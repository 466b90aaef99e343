package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
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

// make start-api WATCH=1 DEBUG=CreatePlantFunction on a copy of the tree: a
// breakpoint stops createplant's debug build; after a save rebuilds the
// functions, the old session ends (its Delve's port refuses), and the next
// request starts the new build under a new Delve on the same port (another
// process), where a breakpoint set through Delve's client stops it in the
// handler, the request completes after continue, and the edited message is
// served.
func TestWatchKeepsDebuggingAfterARebuild(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		emulator.Dynalite(t) // skips, or fails under CI, with the reason
	}
	dlv := delve.Dlv(t, root)
	const fn = "CreatePlantFunction"
	tree := watchtest.CopyTree(t)
	boots := t.TempDir()
	if out, err := localfn.Build(tree, boots, []string{"AuthorizerFunction", fn}, fn); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	addr := delve.FreeAddr(t)
	var stdout, stderr watchtest.Output
	printed := func() string { return "start-api printed:\n" + stdout.String() + stderr.String() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := []string{"startapi", "-watch", "-bootstraps", boots, "-template", filepath.Join(tree, "template.yaml"),
		"-env", filepath.Join(tree, "events", "env.json"), "-data", filepath.Join(t.TempDir(), "dynalite"),
		"-debug", fn, "-debug-addr", addr, "-dlv", dlv}
	go func() {
		done <- command().Run(ctx, args, func(k string) (string, bool) { return map[string]string{"PORT": "0"}[k], k == "PORT" }, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Errorf("run did not return within 60s of cancel; %s", printed())
		}
	})
	// Runs before the cleanup above: start-api's shutdown waits for the
	// requests under way, so a failure must not leave the function stopped
	// (at a breakpoint, or before its first instruction).
	t.Cleanup(func() {
		if t.Failed() {
			endDebugged(t, addr)
		}
	})
	banner := stdout.Banner(t)

	// Bounds that only catch a hang.
	reqCtx, reqCancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer reqCancel()
	type answer struct {
		status int
		body   string
		err    error
	}
	post := func(body string) <-chan answer {
		answered := make(chan answer, 1)
		go func() {
			req, _ := http.NewRequestWithContext(reqCtx, "POST", banner.URL+"/plants", strings.NewReader(body))
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
		return answered
	}
	wait := func(when string, answered <-chan answer) answer {
		t.Helper()
		select {
		case a := <-answered:
			return a
		case <-time.After(90 * time.Second):
			t.Fatalf("%s: no answer within 90s; %s", when, printed())
			return answer{}
		}
	}

	// debug sends a plant named name, which starts the function under a
	// new Delve; it dials that Delve, stops the request at a breakpoint in
	// the handler, continues it (and any later stop) and expects the plant.
	// It returns the client, still continuing, and the debugged process id.
	const handler = "github.com/plantstore/plantstore/internal/httpapi.handleCreatePlant.func1"
	debug := func(when, name string, id int) (*delve.Client, int) {
		t.Helper()
		answered := post(fmt.Sprintf(`{"id":%d,"name":%q}`, id, name))
		dialCtx, dialCancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer dialCancel()
		c, err := delve.Dial(dialCtx, addr)
		if err != nil {
			t.Fatalf("%s: the debugged function is not under Delve: %v; %s", when, err, printed())
		}
		pid, err := c.ProcessPid()
		if err != nil {
			c.Close()
			t.Fatalf("%s: Delve's process id: %v", when, err)
		}
		if _, err := c.Break(handler); err != nil {
			c.Close()
			t.Fatalf("%s: breakpoint at %s: %v (is the function a debug build?)", when, handler, err)
		}
		st, err := c.Continue()
		if err != nil || st.Stopped() != handler {
			c.Close()
			t.Fatalf("%s: stopped in %q (exited %v, %v), want the breakpoint in %s; %s", when, st.Stopped(), st.Exited, err, handler, printed())
		}
		select {
		case a := <-answered:
			c.Close()
			t.Fatalf("%s: answered while stopped at the breakpoint: %d %s %v", when, a.status, a.body, a.err)
		default:
		}
		go func() { // until the session ends
			for {
				if st, err := c.Continue(); err != nil || st.Exited {
					return
				}
			}
		}()
		a := wait(when, answered)
		if a.err != nil || a.status != 200 || !strings.Contains(a.body, fmt.Sprintf("%q", name)) {
			c.Close()
			t.Fatalf("%s: after continue: %d %s %v, want 200 with the plant", when, a.status, a.body, a.err)
		}
		return c, pid
	}

	old, oldPid := debug("before the rebuild", "Before", 4243)
	// The user's editor lets go of the old session; the reload ends it.
	old.Close()

	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`, `"the body is no JSON (at byte %d)"`)
	stdout.WaitFor(t, "; ready", 1)
	if !strings.Contains(stdout.String(), "rebuilt") {
		t.Fatalf("the reload did not rebuild the functions; %s", printed())
	}
	// The old generation closes once its requests are done (there are
	// none): until then its Delve holds the port and a dial would reach it.
	for deadline := time.Now().Add(90 * time.Second); ; {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		conn.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the old Delve still listens on %s 90s after the reload; %s", addr, printed())
		}
		time.Sleep(50 * time.Millisecond)
	}

	c, pid := debug("after the rebuild", "After", 4244)
	defer c.Close()
	if pid == oldPid {
		t.Fatalf("after the rebuild Delve debugs process %d, the one before it", pid)
	}
	a := wait("the new build", post(`{"id":1,"name":}`))
	var e struct{ Message string }
	json.Unmarshal([]byte(a.body), &e)
	if a.err != nil || a.status != 400 || !strings.HasPrefix(e.Message, "the body is no JSON") {
		t.Errorf("after the rebuild: %d %s %v, want 400 with the edited message", a.status, a.body, a.err)
	}
}

// endDebugged ends the function Delve debugs at addr, if any, so that
// start-api's shutdown does not wait on a request stopped in it.
func endDebugged(t *testing.T, addr string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := delve.Dial(ctx, addr)
	if err != nil {
		return
	}
	defer c.Close()
	ended := make(chan error, 1)
	go func() {
		c.Halt() // Delve detaches a stopped process only
		ended <- c.Detach(true)
	}()
	select {
	case <-ended:
	case <-time.After(30 * time.Second):
		t.Errorf("the debugged function at %s did not end within 30s", addr)
	}
}
