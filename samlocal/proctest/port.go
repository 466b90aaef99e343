package proctest

import (
	"bytes"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
)

// FreeAddr is a loopback address that nothing listens on now, for another
// process to take (Delve's -d, a hook's callback URL).
//
// It lies below the system's ephemeral ports, because every listener on
// port 0 and every outgoing connection draws its port from that range.
// Between FreeAddr's close and the other process's listen, a port drawn
// from there can be drawn again by any of them. make test saw it happen to
// Delve's port when FreeAddr listened on 127.0.0.1:0
// (TestWatchKeepsDebuggingAfterARebuild: "bind: address already in use").
// Below the range only another FreeAddr can pick the port: each process
// starts at an offset of its own, and each call takes the next port.
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	const first = 10000
	last := ephemeralFirst() - 1
	if last-first < 100 {
		tb.Fatalf("the ephemeral ports start at %d: no room below them for a port to hand on", last+1)
	}
	for range 200 {
		port := first + int((uint64(os.Getpid())*7919+next.Add(1))%uint64(last-first+1))
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			continue // taken
		}
		addr := ln.Addr().String()
		ln.Close()
		return addr
	}
	tb.Fatalf("no free loopback port in %d..%d", first, last)
	return ""
}

var next atomic.Uint64

// ephemeralFirst is the first ephemeral port. On Linux it is the low end of
// net.ipv4.ip_local_port_range (the kernel's ip-sysctl.rst; 32768 by
// default). Elsewhere (macOS, Windows) it is IANA's dynamic range, from
// 49152.
func ephemeralFirst() int {
	if runtime.GOOS == "linux" {
		raw, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
		if f := bytes.Fields(raw); err == nil && len(f) == 2 {
			if n, err := strconv.Atoi(string(f[0])); err == nil {
				return n
			}
		}
	}
	return 49152
}
