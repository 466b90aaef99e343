package delve_test

import (
	"context"
	"encoding/json"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/aws/aws-lambda-go/events"
	"github.com/go-delve/delve/service/api"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/tools/delve"
)

// A function run under Delve waits for the debugger before its first
// invocation; a breakpoint in its handler stops the invocation; while it is
// stopped, the function's timeout (1 s here) is not enforced, as SAM CLI
// enforces none while debugging; after continue the answer arrives.
func TestABreakpointStopsTheHandler(t *testing.T) {
	t.Parallel()
	bin := lambdatest.DebugBootstrap(t, "AuthorizerFunction")
	var env []string
	for k, v := range fixtures.Env()["AuthorizerFunction"] {
		env = append(env, k+"="+v)
	}
	addr := proctest.FreeAddr(t)
	var out proctest.Output
	fns := lambdaemu.NewFunctions(map[string]lambdaemu.Spec{
		"AuthorizerFunction": {Bootstrap: bin, Env: env, Timeout: time.Second, Debug: &lambdaemu.Debug{Dlv: delve.Dlv(t, srctree.Path()), Addr: addr}},
	}, &out)
	defer fns.Close()

	// Bounds that only catch a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type answer struct {
		payload []byte
		failed  bool
		err     error
	}
	answered := make(chan answer, 1)
	event, _ := json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "Bearer " + fixtures.ValidToken(), MethodArn: fixtures.LocalMethodARN})
	go func() {
		p, failed, err := fns.Invoke(ctx, "AuthorizerFunction", event)
		answered <- answer{p, failed, err}
	}()

	c, err := delve.Dial(ctx, addr)
	if err != nil {
		t.Fatalf("%v\nthe function's output:\n%s", err, out.String())
	}
	defer c.Disconnect(false)
	const handler = "main.(*authorizer).handle"
	if _, err := c.CreateBreakpoint(&api.Breakpoint{FunctionName: handler}); err != nil {
		t.Fatalf("breakpoint at %s: %v", handler, err)
	}
	select {
	case a := <-answered:
		t.Fatalf("the invocation was answered before the debugger continued the program: %s %v %v", a.payload, a.failed, a.err)
	default:
	}
	st := <-c.Continue()
	if st.Err != nil {
		t.Fatal(st.Err)
	}
	if delve.Stopped(st) != handler {
		t.Fatalf("stopped in %q (exited %v), want the breakpoint in %s\n%s", delve.Stopped(st), st.Exited, handler, out.String())
	}
	time.Sleep(1500 * time.Millisecond) // past the function's 1 s timeout, stopped at the breakpoint
	go func() {                         // runs until the next breakpoint or the end; Disconnect or fns.Close ends both
		for range c.Continue() {
		}
	}()
	a := <-answered
	if a.err != nil || a.failed || !strings.Contains(string(a.payload), `"Effect":"Allow"`) {
		t.Fatalf("after continue: %s failed=%v err=%v, want an Allow policy\n%s", a.payload, a.failed, a.err, out.String())
	}
}

// Delve on an address another process holds: RunDebug says so with dlv's
// own line instead of a function that a debugger would never reach (dlv
// connect would reach the other process), and a free address is
// confirmed before RunDebug returns.
func TestDelveOnATakenAddressFails(t *testing.T) {
	t.Parallel()
	bin := lambdatest.DebugBootstrap(t, "AuthorizerFunction")
	dlv := delve.Dlv(t, srctree.Path())
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	d := lambdaemu.Debug{Dlv: dlv, Addr: taken.Addr().String()}
	if err := d.CheckFree(); err == nil || !strings.Contains(err.Error(), "is taken") {
		t.Errorf("CheckFree on a taken address: %v", err)
	}
	srv, err := lambdaemu.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var out proctest.Output
	if f, err := srv.RunDebug(d, bin, nil, &out); err == nil || !strings.Contains(err.Error(), "dlv could not listen on "+d.Addr) || !strings.Contains(err.Error(), "address already in use") {
		if f != nil {
			f.Stop()
		}
		t.Errorf("RunDebug on a taken address: %v\n%s", err, out.String())
	}

	d.Addr = proctest.FreeAddr(t)
	f, err := srv.RunDebug(d, bin, nil, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Stop()
	if !strings.Contains(out.String(), "API server listening at: "+d.Addr) {
		t.Errorf("RunDebug returned before Delve listened:\n%s", out.String())
	}
}
