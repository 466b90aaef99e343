// Package delve is a small client of Delve's JSON-RPC API (version 2, the
// one `dlv --headless --api-version=2` serves and VS Code's Go extension
// speaks): connect, set a breakpoint, continue, detach. The debug tests drive
// the real bootstraps with it, as an editor would. It never ships.
package delve

import (
	"context"
	"fmt"
	"net"
	"net/rpc"
	"net/rpc/jsonrpc"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Client is one connection to a headless Delve.
type Client struct{ rpc *rpc.Client }

// Dial connects to Delve at addr, retrying while it starts, until ctx ends.
func Dial(ctx context.Context, addr string) (*Client, error) {
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			return &Client{rpc: jsonrpc.NewClient(conn)}, nil
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("delve at %s: %w (last: %v)", addr, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Close closes the connection; Delve and the program go on (--accept-multiclient).
func (c *Client) Close() error { return c.rpc.Close() }

// Breakpoint is where a program stopped.
type Breakpoint struct {
	ID           int    `json:"id"`
	FunctionName string `json:"functionName,omitempty"`
	File         string `json:"file"`
	Line         int    `json:"line"`
}

// State is Delve's DebuggerState, the parts the tests read.
type State struct {
	Running       bool `json:"Running"`
	Exited        bool `json:"exited"`
	ExitStatus    int  `json:"exitStatus"`
	CurrentThread *struct {
		Function *struct {
			Name string `json:"name"`
		} `json:"function"`
		Breakpoint *Breakpoint `json:"breakPoint"`
	} `json:"currentThread"`
}

// Stopped is the function the current thread stopped in at a breakpoint,
// or "".
func (s State) Stopped() string {
	if s.CurrentThread == nil || s.CurrentThread.Breakpoint == nil || s.CurrentThread.Function == nil {
		return ""
	}
	return s.CurrentThread.Function.Name
}

// Break sets a breakpoint at the entry of function (a full name, such as
// github.com/x/y.(*T).Method).
func (c *Client) Break(function string) (Breakpoint, error) {
	in := struct{ Breakpoint Breakpoint }{Breakpoint{FunctionName: function}}
	var out struct{ Breakpoint Breakpoint }
	err := c.rpc.Call("RPCServer.CreateBreakpoint", in, &out)
	return out.Breakpoint, err
}

// Continue runs the program until it stops at a breakpoint or exits.
func (c *Client) Continue() (State, error) {
	var out struct{ State State }
	err := c.rpc.Call("RPCServer.Command", map[string]string{"name": "continue"}, &out)
	return out.State, err
}

// Halt stops the running program (a Continue under way returns).
func (c *Client) Halt() (State, error) {
	var out struct{ State State }
	err := c.rpc.Call("RPCServer.Command", map[string]string{"name": "halt"}, &out)
	return out.State, err
}

// ProcessPid is the process id of the program this Delve debugs.
func (c *Client) ProcessPid() (int, error) {
	var out struct{ Pid int }
	err := c.rpc.Call("RPCServer.ProcessPid", struct{}{}, &out)
	return out.Pid, err
}

// Detach ends the session; kill ends the program too. Delve holds it while
// the program runs: Halt first.
func (c *Client) Detach(kill bool) error {
	return c.rpc.Call("RPCServer.Detach", map[string]bool{"Kill": kill}, &struct{}{})
}

// Dlv is the repository's pinned dlv (.bin/dlv, which make test installs),
// for tests in a package dir levels below the root; it skips tb when
// Delve is missing, or fails it under CI=true.
func Dlv(tb testing.TB, root string) string {
	tb.Helper()
	path, _ := filepath.Abs(filepath.Join(root, ".bin", "dlv"))
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("Delve is not installed at %s (make test installs it)", path)
		}
		tb.Skip("Delve is not installed (make test installs it into .bin/)")
	}
	return path
}

// FreeAddr is a loopback address nothing listens on, for Delve to take.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}
