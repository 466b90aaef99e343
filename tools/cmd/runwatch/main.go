// Command runwatch is `make run WATCH=1`: the local API, rebuilt and
// restarted on every change of the Go source that ships (tools/watch),
// without dropping a request. It holds the listening port itself and passes
// each request to the current cmd/localapi process on a private loopback
// port. On a change it builds first while the old process keeps serving; a
// build that fails leaves the old code serving and prints the compiler's
// error once. Then requests that arrive wait a moment, those in flight
// finish on the old process, the old process stops (it holds the bbolt
// file's lock), the new one starts on the same store, and the waiting
// requests go to it. The HS256 secret is made once, so the printed token
// works across reloads.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plantstore/plantstore/internal/devserver"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/watch"
)

func main() {
	proc.Main("run", func(ctx context.Context) error { return run(ctx, os.Environ(), os.Stdout, os.Stderr, ".") })
}

// child is one cmd/localapi process and the requests it is serving.
type child struct {
	srv      *proc.Server
	proxy    *httputil.ReverseProxy
	inflight sync.WaitGroup
}

// supervisor hands each request to the current child; while it swaps
// children, new requests wait.
type supervisor struct {
	mu       sync.Mutex
	cond     *sync.Cond
	cur      *child
	swapping bool
}

func (s *supervisor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	for s.swapping {
		s.cond.Wait()
	}
	c := s.cur
	c.inflight.Add(1)
	s.mu.Unlock()
	defer c.inflight.Done()
	c.proxy.ServeHTTP(w, r)
}

// swap stops the current child once its requests are done and starts the
// one start makes; if that fails, it starts the old binary again.
func (s *supervisor) swap(start func() (*child, error), restart func() (*child, error)) error {
	s.mu.Lock()
	s.swapping = true
	old := s.cur
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.swapping = false
		s.cond.Broadcast()
		s.mu.Unlock()
	}()
	// The old server finishes its requests for localfn.DrainTimeout at most
	// (the local API's own read, write and store bounds fit inside it), so
	// a hung request never holds a reload.
	drained := make(chan struct{})
	go func() { old.inflight.Wait(); close(drained) }()
	select {
	case <-drained:
	case <-time.After(localfn.DrainTimeout):
	}
	_ = old.srv.Stop()
	next, err := start()
	if err != nil {
		back, rerr := restart()
		if rerr != nil {
			return errors.Join(err, rerr)
		}
		next = back
	}
	s.mu.Lock()
	s.cur = next
	s.mu.Unlock()
	return err
}

// run serves with environ, the environment that every local API process
// gets (PORT is the supervisor's own; each process listens on a free one).
func run(ctx context.Context, environ []string, stdout, stderr io.Writer, root string) error {
	getenv := func(k string) string {
		v := ""
		for _, kv := range environ {
			if name, value, ok := strings.Cut(kv, "="); ok && name == k {
				v = value // the last one wins, as for exec.Cmd's Env
			}
		}
		return v
	}
	port, err := devserver.Port(getenv, 3000)
	if err != nil {
		return err
	}
	env := slices.Clone(environ)
	secret := getenv("AUTH_HS256_SECRET")
	if secret == "" && getenv("AUTH_JWKS_URL") == "" {
		// One secret for every child, so the token printed once stays good.
		var b [32]byte
		_, _ = rand.Read(b[:])
		secret = hex.EncodeToString(b[:])
		env = append(env, "AUTH_HS256_SECRET="+secret)
	}
	env = append(env, "PORT=0", "HOST=127.0.0.1")
	dir, err := proc.TempDir("plantstore-run-")
	if err != nil {
		return err
	}
	generation := 0
	build := func() (string, string, error) { // binary, compiler output
		generation++
		bin := filepath.Join(dir, "localapi-"+strconv.Itoa(generation))
		cmd := exec.Command("go", "build", "-o", bin, "./cmd/localapi")
		cmd.Dir = root
		out, err := cmd.CombinedOutput()
		return bin, string(out), err
	}
	startChild := func(bin string) (*child, error) {
		srv, err := proc.StartServer(bin, env, secret != "", stderr)
		if err != nil {
			return nil, err
		}
		target, err := url.Parse(srv.URL)
		if err != nil {
			srv.Stop()
			return nil, err
		}
		p := httputil.NewSingleHostReverseProxy(target)
		p.ErrorLog = slog.NewLogLogger(slog.NewJSONHandler(stderr, nil), slog.LevelWarn)
		return &child{srv: srv, proxy: p}, nil
	}

	bin, out, err := build()
	if err != nil {
		return fmt.Errorf("build cmd/localapi:\n%s", out)
	}
	first, err := startChild(bin)
	if err != nil {
		return err
	}
	s := &supervisor{cur: first}
	s.cond = sync.NewCond(&s.mu)

	w, err := watch.New(root, "", 150*time.Millisecond)
	if err != nil {
		return err
	}
	wctx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	go func() {
		if err := w.Run(wctx); err != nil {
			fmt.Fprintf(stdout, "reload: off: %v; what is serving stays, restart make run WATCH=1 to reload again\n", err)
		}
	}()

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Plant Store local API listening on %s (watching the source: a change rebuilds and restarts it)\n", url)
	if first.srv.Token != "" {
		fmt.Fprintf(stdout, "Token (valid 24h0m0s; the same across reloads):\n%s\n", first.srv.Token)
		fmt.Fprintf(stdout, "Try:\ncurl -i %s/plants -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"id\":%d,\"name\":\"Monstera\",\"tag\":\"indoor\"}'\n", url, first.srv.Token, time.Now().Unix())
	}
	go func() {
		current := bin
		for c := range w.Changes() {
			if len(c.Go) == 0 {
				continue
			}
			start := time.Now()
			next, out, err := build()
			if err != nil {
				fmt.Fprintf(stdout, "reload: %s changed; the build failed, the last good code keeps serving:\n%s", c, out)
				continue
			}
			built := time.Since(start)
			prev := current
			err = s.swap(func() (*child, error) { return startChild(next) }, func() (*child, error) { return startChild(prev) })
			if err != nil {
				fmt.Fprintf(stdout, "reload: %s changed; the new code did not start (%v), the last good code keeps serving\n", c, err)
				continue
			}
			current = next
			fmt.Fprintf(stdout, "reload: %s changed; built in %s; ready\n", c, built.Round(time.Millisecond))
		}
	}()
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 60 * time.Second}
	err = devserver.Serve(ctx, srv, ln, io.Discard, "")
	s.mu.Lock()
	cur := s.cur
	s.mu.Unlock()
	cur.inflight.Wait()
	_ = cur.srv.Stop()
	if err == nil {
		fmt.Fprintln(stdout, "Plant Store local API stopped")
	}
	return err
}
