package proctest

import (
	"net"
	"strconv"
	"testing"
)

// FreeAddr's ports lie below the ephemeral ones, differ from call to call
// and are free to listen on.
func TestFreeAddrIsBelowTheEphemeralPorts(t *testing.T) {
	seen := map[string]bool{}
	for range 20 {
		addr := FreeAddr(t)
		_, p, _ := net.SplitHostPort(addr)
		if n, _ := strconv.Atoi(p); n < 10000 || n >= ephemeralFirst() {
			t.Errorf("%s: want a port in 10000..%d", addr, ephemeralFirst()-1)
		}
		if seen[addr] {
			t.Errorf("%s twice", addr)
		}
		seen[addr] = true
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Error(err)
			continue
		}
		ln.Close()
	}
}
