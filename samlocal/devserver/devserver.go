// Package devserver holds what the servers a developer runs on a laptop
// share: make run (cmd/localapi), make start-api (tools/cmd/startapi), make
// start-lambda (tools/cmd/startlambda) and make run TRACE=1 or WATCH=1 front
// (tools/cmd/runfront). They read PORT the same way, answer only this
// machine's programs and pages (LoopbackOnly), listen, serve and stop with
// one skeleton (Server.Run) whose bounds are chosen here (APITimeouts,
// ToolTimeouts), print the same kind of banner (where they listen, a token
// the server accepts and a curl line to try it), and stop the same way: on
// SIGINT or SIGTERM, requests in flight finish, one "stopped" line is
// printed and the process exits 0.
package devserver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"
)

// shutdownTimeout bounds how long requests in flight may take to finish.
const shutdownTimeout = 10 * time.Second

// Port reads PORT: a number from 0 (a free port) to 65535, def when unset
// (3000 for make run and make start-api, 3001 for make start-lambda, as
// under SAM CLI).
func Port(getenv func(string) string, def int) (int, error) {
	v := getenv("PORT")
	if v == "" {
		return def, nil
	}
	p, err := strconv.Atoi(v)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("PORT=%q: want a port number from 0 to 65535", v)
	}
	return p, nil
}

// Timeouts bound how long one client may hold a connection and how large
// a head it may send. They are chosen once, here, for the two kinds of
// server: APITimeouts and ToolTimeouts.
type Timeouts struct {
	ReadHeader     time.Duration // to send the request line and the headers
	Read           time.Duration // to send the whole request, headers and body
	Write          time.Duration // to be answered, from the end of the head; 0 for none
	Idle           time.Duration // between two requests on a kept-alive connection
	MaxHeaderBytes int           // the request line and headers; 0 for net/http's 1 MB
}

// APITimeouts are make run's (cmd/localapi), whose bodies are at most
// 64 KiB (httpapi.MaxBodyBytes) and whose store work is bounded by 10 s:
//
//   - ReadHeader 5 s and Read 10 s: a 64 KiB body crosses loopback in
//     microseconds and a slow network in well under a second, so a client
//     that trickles its body is cut off within 10 s;
//   - Write 15 s: past the 10 s of store work a request may take;
//   - Idle 60 s between requests, the SDKs' keep-alive reuse;
//   - MaxHeaderBytes 16 KiB: a bearer token and the usual headers, with room.
func APITimeouts() Timeouts {
	return Timeouts{ReadHeader: 5 * time.Second, Read: 10 * time.Second, Write: 15 * time.Second, Idle: 60 * time.Second, MaxHeaderBytes: 16 << 10}
}

// ToolTimeouts are make start-api's, make start-lambda's and the front of
// make run WATCH=1 (which passes requests on to a make run process that
// keeps APITimeouts):
//
//   - ReadHeader 10 s: a header crosses loopback in microseconds; 10 s
//     still lets a person type one into nc;
//   - Read 40 s for the header and the body: the largest body either takes
//     (10 MB, the gateway's quota) crosses loopback in well under a second,
//     and 40 s is the header's 10 s plus the 30 s the gateway gives a body
//     it reads (gateway.BodyTimeout), so no request either would wait for is
//     cut, while a client that trickles its body (a byte every 3 s) is cut
//     off. It bounds the reading only: net/http clears the deadline once the
//     body is read, so a function may run longer and still answer;
//   - Idle 60 s between requests, the SDKs' keep-alive reuse;
//   - no Write: an invocation is answered only when the function returns,
//     which may take its whole timeout (the PreTraffic hook's 60 s; Lambda
//     allows 15 minutes), so a write deadline would cut good answers;
//   - net/http's 1 MB of headers: start-api sets the gateway's own quota.
func ToolTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 40 * time.Second, Idle: 60 * time.Second}
}

// Server is a server a developer runs on this machine: make run, make
// start-api, make start-lambda and make run WATCH=1's front are each one.
type Server struct {
	Name     string // what the stop line names, e.g. "samlocal start-api"; "" prints none
	Addr     string // host:port; port 0 takes a free one
	Handler  http.Handler
	Timeouts Timeouts
	Logger   *slog.Logger // the server's own errors (a request cut off, a malformed one), at warn
}

// Run listens on s.Addr, calls ready with the URL it serves (to print the
// banner), then serves until ctx ends and shuts down: requests in flight
// finish (for up to shutdownTimeout) and "<Name> stopped" is printed to
// stdout. Requests' contexts outlive ctx, so that a request in flight is
// not cut by the stop. A clean stop is a nil error.
func (s Server) Run(ctx context.Context, stdout io.Writer, ready func(url string) error) error {
	ln, err := net.Listen("tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	t := s.Timeouts
	srv := &http.Server{
		Handler:           s.Handler,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		WriteTimeout:      t.Write,
		IdleTimeout:       t.Idle,
		MaxHeaderBytes:    t.MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.Logger.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	if ready != nil {
		if err := ready("http://" + ln.Addr().String()); err != nil {
			_ = ln.Close() // the banner failed; the port is given back
			return err
		}
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	if s.Name != "" {
		fmt.Fprintln(stdout, s.Name, "stopped")
	}
	return nil
}
