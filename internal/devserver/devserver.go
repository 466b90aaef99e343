// Package devserver holds what the servers a developer runs on a laptop
// share: make run (cmd/localapi), make start-api (tools/cmd/startapi) and
// make start-lambda (tools/cmd/startlambda). They read PORT the same way,
// answer only this machine's programs and pages (LoopbackOnly), print the
// same kind of banner (where they listen, a token the server accepts and a
// curl line to try it), and stop the same way: on SIGINT or SIGTERM,
// requests in flight finish, one "stopped" line is printed and the process
// exits 0.
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

	"github.com/plantstore/plantstore/internal/auth"
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

// Timeouts bound how long one client may hold a connection.
type Timeouts struct {
	ReadHeader time.Duration // to send the request line and the headers
	Read       time.Duration // to send the whole request, headers and body
	Idle       time.Duration // between two requests on a kept-alive connection
}

// ToolTimeouts are make start-api's and make start-lambda's (make run keeps
// tighter ones of its own, for its 64 KiB bodies):
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
//   - no WriteTimeout: an invocation is answered only when the function
//     returns, which may take its whole timeout (the PreTraffic hook's 60 s;
//     Lambda allows 15 minutes), so a write deadline would cut good answers.
func ToolTimeouts() Timeouts {
	return Timeouts{ReadHeader: 10 * time.Second, Read: 40 * time.Second, Idle: 60 * time.Second}
}

// Server is an http.Server for h that keeps to t and logs its own errors (a
// request cut off, a malformed one) through logger at warn.
func (t Timeouts) Server(h http.Handler, logger *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: t.ReadHeader,
		ReadTimeout:       t.Read,
		IdleTimeout:       t.Idle,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
}

// Serve serves srv on ln until ctx ends, then shuts it down: requests in
// flight finish (for up to shutdownTimeout) and "<name> stopped" is
// printed to stdout. A clean stop is a nil error.
func Serve(ctx context.Context, srv *http.Server, ln net.Listener, stdout io.Writer, name string) error {
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
	fmt.Fprintln(stdout, name, "stopped")
	return nil
}

// tokenTTL is how long a printed token is valid.
const tokenTTL = 24 * time.Hour

// PrintToken prints a token that secret signs for spec (its IssuedAt and
// TTL are set here) and a curl line that creates a plant with it. The line
// names a fresh id (the time in seconds), so that it creates a plant even
// on a store that fixtures or earlier runs have filled. note, when not
// empty, follows the validity on the token's line.
func PrintToken(w io.Writer, secret []byte, spec auth.TokenSpec, url, note string, now time.Time) error {
	spec.IssuedAt, spec.TTL = now, tokenTTL
	tok, err := auth.NewHS256Token(secret, spec)
	if err != nil {
		return fmt.Errorf("sign a token: %w", err)
	}
	scope := ""
	if spec.Scope != "" {
		scope = ", scope " + spec.Scope
	}
	fmt.Fprintf(w, "Token (valid %s%s%s):\n%s\n", tokenTTL, scope, note, tok)
	fmt.Fprintf(w, "Try:\ncurl -i %s/plants -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"id\":%d,\"name\":\"Monstera\",\"tag\":\"indoor\"}'\n", url, tok, now.Unix())
	return nil
}
