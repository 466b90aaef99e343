// Package delve is what the debug tests need around Delve's own client,
// github.com/go-delve/delve/service/rpc2, to drive the real bootstraps under
// a headless Delve (`dlv --headless --api-version=2`, as VS Code's Go
// extension does): a dial that waits for Delve to listen (rpc2.NewClient
// exits the process when a dial fails), the function a state stopped in at
// a breakpoint, the repository's pinned dlv (.bin/dlv), and a free address
// for it. It never ships.
package delve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-delve/delve/service/api"
	"github.com/go-delve/delve/service/rpc2"
)

// Dial connects Delve's client to the headless Delve at addr, retrying
// while it starts, until ctx ends. Disconnect(false) lets go of it; Delve
// and the program go on (--accept-multiclient).
func Dial(ctx context.Context, addr string) (*rpc2.RPCClient, error) {
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err == nil {
			var c *rpc2.RPCClient
			if c, err = handshake(ctx, conn); err == nil {
				return c, nil
			}
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("delve at %s: %w (last: %v)", addr, ctx.Err(), err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// handshake is Delve's client on conn, once Delve answered on it with API
// v2; ctx bounds the exchange.
func handshake(ctx context.Context, conn net.Conn) (*rpc2.RPCClient, error) {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	c := rpc2.NewClientFromConn(conn) // sets API v2; its error is dropped
	var v api.GetVersionOut
	err := c.CallAPI("GetVersion", api.GetVersionIn{}, &v)
	if !stop() {
		err = errors.Join(ctx.Err(), err)
	}
	if err == nil && v.APIVersion != 2 {
		err = fmt.Errorf("delve %s serves API v%d, not v2", v.DelveVersion, v.APIVersion)
	}
	if err != nil {
		c.Disconnect(false)
		return nil, err
	}
	return c, nil
}

// Stopped is the function the current thread stopped in at a breakpoint,
// or "".
func Stopped(st *api.DebuggerState) string {
	if st == nil || st.CurrentThread == nil || st.CurrentThread.Breakpoint == nil || st.CurrentThread.Function == nil {
		return ""
	}
	return st.CurrentThread.Function.Name()
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

// Flags are samlocal's flags that run function under the Delve at dlv,
// its headless server on addr (a loopback address, as proctest.FreeAddr's).
func Flags(function, addr, dlv string) []string {
	_, port, _ := net.SplitHostPort(addr)
	return []string{"--debug-function", function, "-d", port, "--debugger-path", filepath.Dir(dlv)}
}
