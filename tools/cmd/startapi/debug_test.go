package startapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-delve/delve/service/api"
	"github.com/go-delve/delve/service/rpc2"

	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/tools/delve"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// make start-api DEBUG=CreatePlantFunction: createplant's debug build runs
// under Delve; a breakpoint set from Delve's client in the handler stops a
// request sent through the gateway, and after continue the request is
// answered. Its functions start with it (--warm-containers EAGER, as
// samconfig.toml has it for start-api): Delve's port is checked before
// Delve takes it.
func TestABreakpointStopsCreatePlant(t *testing.T) {
	t.Parallel()
	dlv := delve.Dlv(t, root)
	dir := debugBootstraps(t)
	addr := proctest.FreeAddr(t)
	banner, out := startAPIOut(t, dir, append(delve.Flags("CreatePlantFunction", addr, dlv), "--warm-containers", "EAGER")...)
	c, _ := debugOnce(t, "start-api DEBUG", addr, banner, "Debugged", 4242, out.String)
	c.Disconnect(false)
}

// debugBootstraps is a folder of bootstraps (<Function>/bootstrap) with
// createplant's built for a debugger, as make start-api
// DEBUG=CreatePlantFunction builds them.
func debugBootstraps(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for fn, bin := range map[string]string{
		"CreatePlantFunction": lambdatest.DebugBootstrap(t, "CreatePlantFunction"),
		"AuthorizerFunction":  lambdatest.Bootstrap(t, "AuthorizerFunction"),
	} {
		if err := os.MkdirAll(filepath.Join(dir, fn), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(bin, filepath.Join(dir, fn, "bootstrap")); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// answer is what a request got.
type answer struct {
	status int
	body   string
	err    error
}

// post sends body to url/plants with token and delivers the answer; ctx
// bounds it (a bound that only catches a hang).
func post(ctx context.Context, url, token, body string) <-chan answer {
	answered := make(chan answer, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, "POST", url+"/plants", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
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

// wait is the answer, or fails t after 90 s (a bound that only catches a hang).
func wait(t *testing.T, when string, answered <-chan answer, printed func() string) answer {
	t.Helper()
	select {
	case a := <-answered:
		return a
	case <-time.After(90 * time.Second):
		t.Fatalf("%s: no answer within 90s; start-api printed:\n%s", when, printed())
		return answer{}
	}
}

// handler is where the breakpoints go: createplant's handler.
const handler = "github.com/plantstore/plantstore/internal/httpapi.handleCreatePlant.func1"

// debugOnce sends a plant named name, which runs the debugged function;
// it dials that function's Delve at addr, stops the request at a
// breakpoint in the handler, sees that it is not answered while stopped,
// continues it (and any later stop) and expects the plant. It returns the
// client, still continuing, and the debugged process id.
func debugOnce(t *testing.T, when, addr string, banner devserver.Banner, name string, id int, printed func() string) (*rpc2.RPCClient, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	answered := post(ctx, banner.URL, banner.Token, fmt.Sprintf(`{"id":%d,"name":%q}`, id, name))
	dialCtx, dialCancel := context.WithTimeout(ctx, 90*time.Second)
	defer dialCancel()
	c, err := delve.Dial(dialCtx, addr)
	if err != nil {
		t.Fatalf("%s: the debugged function is not under Delve: %v; start-api printed:\n%s", when, err, printed())
	}
	var p rpc2.ProcessPidOut // c.ProcessPid drops the error
	if err := c.CallAPI("ProcessPid", rpc2.ProcessPidIn{}, &p); err != nil {
		c.Disconnect(false)
		t.Fatalf("%s: Delve's process id: %v", when, err)
	}
	pid := p.Pid
	if _, err := c.CreateBreakpoint(&api.Breakpoint{FunctionName: handler}); err != nil {
		c.Disconnect(false)
		t.Fatalf("%s: breakpoint at %s: %v (is the function a debug build?)", when, handler, err)
	}
	st := <-c.Continue()
	if st.Err != nil || delve.Stopped(st) != handler {
		c.Disconnect(false)
		t.Fatalf("%s: stopped in %q (exited %v, %v), want the breakpoint in %s; start-api printed:\n%s", when, delve.Stopped(st), st.Exited, st.Err, handler, printed())
	}
	select {
	case a := <-answered:
		c.Disconnect(false)
		t.Fatalf("%s: answered while stopped at the breakpoint: %d %s %v", when, a.status, a.body, a.err)
	default:
	}
	go func() { // until the session ends
		for {
			if st := <-c.Continue(); st.Err != nil || st.Exited {
				return
			}
		}
	}()
	a := wait(t, when, answered, printed)
	if a.err != nil || a.status != 200 || !strings.Contains(a.body, fmt.Sprintf("%q", name)) {
		c.Disconnect(false)
		t.Fatalf("%s: after continue: %d %s %v, want 200 with the plant", when, a.status, a.body, a.err)
	}
	return c, pid
}

// make start-api WATCH=1 DEBUG=CreatePlantFunction on a copy of the tree,
// its functions started with it (--warm-containers EAGER, as samconfig.toml
// has it for start-api): a breakpoint stops createplant's debug build;
// after a save rebuilds the functions, the old generation closes before the
// new one starts (both would listen on Delve's one address), and the new
// build runs under a new Delve on the same port (another process), where a
// breakpoint set through Delve's client stops it in the handler, the
// request completes after continue, and the edited message is served.
func TestWatchKeepsDebuggingAfterARebuild(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	dlv := delve.Dlv(t, root)
	const fn = "CreatePlantFunction"
	tree := watchtest.CopyTree(t)
	boots := watchtest.Build(t, tree, []string{"AuthorizerFunction", fn}, fn)
	addr := proctest.FreeAddr(t)
	var stdout, stderr proctest.Output
	printed := func() string { return stdout.String() + stderr.String() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := []string{"start-api", "-p", "0", "-watch", "--build-dir", boots, "--skip-build", "--warm-containers", "EAGER", "-t", filepath.Join(tree, "template.yaml"),
		"-n", filepath.Join(tree, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite")}
	args = append(args, delve.Flags(fn, addr, dlv)...)
	go func() {
		done <- cli.Run(ctx, args, func(k string) (string, bool) { v, ok := apiShell(t)[k]; return v, ok }, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(60 * time.Second):
			t.Errorf("run did not return within 60s of cancel; start-api printed:\n%s", printed())
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

	old, oldPid := debugOnce(t, "before the rebuild", addr, banner, "Before", 4243, printed)
	// The user's editor lets go of the old session; the reload ends it.
	old.Disconnect(false)

	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`, `"the body is no JSON (at byte %d)"`)
	if line := stdout.WaitMatch(t, regexp.MustCompile(`(?m)^reload: .*(; ready|nothing serves.*|keeps serving)$`)); !strings.Contains(line, "rebuilt") {
		t.Fatalf("the reload did not rebuild and start the functions: %q; start-api printed:\n%s", line, printed())
	}
	c, pid := debugOnce(t, "after the rebuild", addr, banner, "After", 4244, printed)
	defer c.Disconnect(false)
	if pid == oldPid {
		t.Fatalf("after the rebuild Delve debugs process %d, the one before it", pid)
	}
	ctx2, cancel2 := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel2()
	a := wait(t, "the new build", post(ctx2, banner.URL, banner.Token, `{"id":1,"name":}`), printed)
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
	defer c.Disconnect(false)
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

// make start-api DEBUG=... with the debug port held by another process
// stops with one line before its banner says where Delve listens: a
// debugger connecting there would reach the other process.
func TestATakenDebugPortStopsStartAPI(t *testing.T) {
	t.Parallel()
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	var stdout, stderr strings.Builder
	args := []string{"start-api", "-p", "0", "--build-dir", t.TempDir(), "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(root, "template.yaml"),
		"-n", filepath.Join(root, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite"),
		"--debug-function", "CreatePlantFunction", "-d", strconv.Itoa(taken.Addr().(*net.TCPAddr).Port)}
	shell := apiShell(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // ends a start-api that serves anyway
	defer cancel()
	err = cli.Run(ctx, args, func(k string) (string, bool) { v, ok := shell[k]; return v, ok }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "the debug address "+taken.Addr().String()+" is taken") {
		t.Errorf("start-api on a taken debug port: %v", err)
	}
	if strings.Contains(stdout.String(), "Delve listens") {
		t.Errorf("start-api said Delve listens on a taken port:\n%s", stdout.String())
	}
}
