package blackbox

import (
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// CutsOffATrickle sends head to the server at addr, then a byte every
// 300 ms, and fails t unless the server closes the connection: its read
// timeout must cut off a client that trickles its body. The 30 s bound only
// catches a server that never does (head should announce a body that takes
// far longer to trickle, e.g. Content-Length: 1000, 300 s).
func CutsOffATrickle(t *testing.T, addr, head string) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(300 * time.Millisecond):
				if _, err := conn.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = io.Copy(io.Discard, conn) // whatever the server answers, until it closes
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		t.Errorf("a body trickling a byte every 300 ms held the connection for 30 s")
	}
}
