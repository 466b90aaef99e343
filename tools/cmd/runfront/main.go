// Command runfront is `make run TRACE=1` and `make run WATCH=1`: the local
// API (cmd/localapi) behind a front that traces every request and, with
// -watch, rebuilds and restarts it on every change of the Go source that
// ships (tools/watch) without dropping a request.
//
// The front holds the listening port and passes each request to the
// current cmd/localapi process on a private loopback port. That process
// runs at LOG_LEVEL=debug, so its token check and store call each log a
// step line; the front joins them to their request by the id its answer
// names (x-amzn-RequestId), prints one line per request and serves the
// page under /_samlocal/ (tools/trace), and passes on only the log lines
// the developer's LOG_LEVEL asks for.
//
// On a change it builds first while the old process keeps serving; a build
// that fails leaves the old code serving and prints the compiler's error
// once. Then requests that arrive wait a moment, those in flight finish on
// the old process, the old process stops (it holds the bbolt file's lock),
// the new one starts on the same store, and the waiting requests go to it.
// The HS256 secret is made once, so the printed token works across reloads.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
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

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/termsafe"

	"github.com/plantstore/plantstore/internal/logging"
	"github.com/plantstore/plantstore/internal/serverproc"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/localserve"
	"github.com/plantstore/plantstore/samlocal/proc"
	"github.com/plantstore/plantstore/samlocal/trace"
	"github.com/plantstore/plantstore/samlocal/watch"
	"github.com/plantstore/plantstore/tools/toolcache"
)

func main() {
	watching := flag.Bool("watch", false, "rebuild and restart the local API on every change of the source")
	flag.Parse()
	proc.Main("run", func(ctx context.Context) error {
		return run(ctx, os.Environ(), os.Stdout, os.Stderr, ".", *watching)
	})
}

// run serves with environ, the environment that every local API process
// gets (PORT is the front's own; each process listens on a free one).
func run(ctx context.Context, environ []string, stdout, stderr io.Writer, root string, watching bool) error {
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
	shown, err := logging.ParseLevel(getenv("LOG_LEVEL"))
	if err != nil {
		return err
	}
	allowed, err := devserver.ParseHosts(getenv("ALLOW_HOSTS"))
	if err != nil {
		return fmt.Errorf("ALLOW_HOSTS=%q: %w", getenv("ALLOW_HOSTS"), err)
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
	env = append(env, "PORT=0", "HOST=127.0.0.1", "LOG_LEVEL=debug") // the step lines; the front shows what LOG_LEVEL asks for
	dir, err := childproc.TempDir(buildFolderPrefix)
	if err != nil {
		return err
	}
	// The builds go when run returns; on a signal, proc.Main's StopAll
	// removes the folder on its way out.
	defer os.RemoveAll(dir)
	b := &builder{root: root, dir: dir, kept: keptPath(root)}
	rec := trace.NewRecorder(stdout)
	rec.Title = "Plant Store make run"
	output := rec.LogsAbove(stderr, shown)
	// A generation is one cmd/localapi process, to which a reverse proxy
	// passes the requests; its answer names the request's id, which ties
	// the process's log lines to the request's trace.
	// Its lines may carry what a request did (the reverse proxy's errors
	// name the request's URL): each is escaped (termsafe.Escape), as JSON
	// leaves DEL and the C1 controls as they are. output escapes too.
	logger := slog.New(slog.NewJSONHandler(termsafe.Escaper(stderr), &slog.HandlerOptions{Level: shown}))
	generationOf := func(srv *serverproc.Server) (localserve.Generation, error) {
		target, err := url.Parse(srv.URL)
		if err != nil {
			_ = srv.Stop()
			return localserve.Generation{}, err
		}
		p := httputil.NewSingleHostReverseProxy(target)
		p.ErrorLog = slog.NewLogLogger(logger.Handler(), slog.LevelWarn)
		p.ModifyResponse = func(resp *http.Response) error {
			if id := resp.Header.Get(requestIDHeader); id != "" {
				trace.Invoked(resp.Request.Context(), id, "")
			}
			return nil
		}
		return localserve.Generation{Handler: p, Close: func() { _ = srv.Stop() }}, nil
	}
	start := func(bin string) (localserve.Generation, error) {
		srv, err := serverproc.StartServer(bin, env, secret != "", output)
		if err != nil {
			return localserve.Generation{}, err
		}
		return generationOf(srv)
	}

	bin, out, err := b.build(ctx)
	if err != nil {
		return fmt.Errorf("build cmd/localapi (%w):\n%s", err, out)
	}
	first, err := serverproc.StartServer(bin, env, secret != "", output)
	if err != nil {
		return err
	}
	gen, err := generationOf(first)
	if err != nil {
		return err
	}
	sw := localserve.NewSwapper(gen)

	stopWatch := func() {}
	if watching {
		if stopWatch, err = reloadOnChange(ctx, root, bin, b.build, start, sw, stdout); err != nil {
			return err
		}
		defer stopWatch()
	}

	// The page's explorer sends the printed token.
	doc, err := os.ReadFile(filepath.Join(root, "api", "openapi.yaml"))
	if err != nil {
		return err
	}
	if rec.Explorer.Operations, err = trace.ParseOpenAPI(doc); err != nil {
		return err
	}
	rec.Explorer.Token = first.Token
	// The page answers only this machine, as the local API does: a request
	// it refuses goes on to the local API, which refuses it in its words.
	front := devserver.LoopbackOnly(rec.Handler(sw), allowed, func(w http.ResponseWriter, r *http.Request, _ string) { sw.ServeHTTP(w, r) })
	srv := devserver.Server{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), Handler: front, Timeouts: devserver.ToolTimeouts(), Logger: logger}
	err = srv.Run(ctx, stdout, func(url string) error {
		what := "each request traced"
		if watching {
			what += "; watching the source: a change rebuilds and restarts it"
		}
		fmt.Fprintf(stdout, "Plant Store local API listening on %s (%s)\n", url, what)
		fmt.Fprintf(stdout, "Requests, each with its steps and log lines: %s (API explorer: %s)\n", rec.Link(url, "requests"), rec.Link(url, "explorer"))
		if first.Token != "" {
			fmt.Fprintf(stdout, "Token (valid 24h0m0s%s):\n%s\n", map[bool]string{true: "; the same across reloads"}[watching], first.Token)
			fmt.Fprintf(stdout, "Try:\ncurl -i %s/plants -H 'Authorization: Bearer %s' -H 'Content-Type: application/json' -d '{\"id\":%d,\"name\":\"Monstera\",\"tag\":\"indoor\"}'\n", url, first.Token, time.Now().Unix())
		}
		return nil
	})
	stopWatch() // a rebuild under way ends first: its folder goes after it
	sw.Close()  // the current process finishes its requests and stops
	if err == nil {
		fmt.Fprintln(stdout, "Plant Store local API stopped")
	}
	return err
}

// A builder builds cmd/localapi of root into dir, a new file for each
// generation. A build starts from a copy of the last good one (for a start's
// first, the last start's, which kept holds), and the go command leaves a
// target whose build ID matches what it would link as it is
// (cmd/go/internal/work/buildid.go, useCache): only changed code is linked
// again, and a start with no change links nothing.
//
// A build ends with its context (childproc.Run interrupts it), and what
// the go command leaves when interrupted (its work folder, golang/go#25808)
// stays in dir, which goes when the tool stops.
type builder struct {
	root, dir  string
	kept       string // "" when there is no cache folder
	generation int
}

// build builds the next generation, and returns its executable and the
// compiler's output.
func (b *builder) build(ctx context.Context) (string, string, error) {
	b.generation++
	bin := filepath.Join(b.dir, "localapi-"+strconv.Itoa(b.generation))
	if err := localfn.SeedFile(bin, b.kept); err != nil {
		return bin, "", err
	}
	seeded, _ := os.Stat(bin)
	out, err := b.link(ctx, bin)
	if built, serr := os.Stat(bin); err == nil && serr == nil && (seeded == nil || !os.SameFile(seeded, built)) {
		b.keep(bin) // linked again: kept holds the old code
	}
	return bin, out, err
}

// link runs go build into bin, a seeded file or none.
func (b *builder) link(ctx context.Context, bin string) (string, error) {
	var out bytes.Buffer
	cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, "./cmd/localapi") // as make bin/localapi builds it
	cmd.Dir, cmd.Env = b.root, append(os.Environ(), "GOTMPDIR="+b.dir)
	cmd.Stdout, cmd.Stderr = &out, &out
	err := childproc.Run(ctx, cmd)
	return out.String(), err
}

// keep makes bin the next build's seed: a whole copy, renamed into place,
// so that another front of the same root reads the old file or the new.
// It only saves links, so a failure is no error.
func (b *builder) keep(bin string) {
	if b.kept == "" {
		return
	}
	tmp := fmt.Sprintf("%s.%d", b.kept, os.Getpid())
	_ = os.Remove(tmp)
	if localfn.SeedFile(tmp, bin) != nil || os.Rename(tmp, b.kept) != nil {
		_ = os.Remove(tmp)
	}
}

// keptPath is where the last good build of root waits for the next start:
// in the cache folder (tools/toolcache, PLANTSTORE_CACHE), by the root's
// absolute path; "" when caching is off or there is no such folder.
func keptPath(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		return ""
	}
	c, err := toolcache.Open("", "run", []byte(abs))
	if err != nil || c == nil {
		return ""
	}
	return filepath.Join(c.Dir(), "localapi")
}

// reloadOnChange rebuilds the local API on every change of the Go source
// under root and replaces the serving process with the new build (bin is
// the serving one); the function it returns stops watching and returns
// once a rebuild under way has ended (localserve.Reload), so that its go
// build writes nothing after the temporary folder is removed.
func reloadOnChange(ctx context.Context, root, bin string, build func(context.Context) (string, string, error),
	start func(string) (localserve.Generation, error), sw *localserve.Swapper, stdout io.Writer) (func(), error) {
	wctx, stopWatch := context.WithCancel(ctx)
	current := bin
	ended, err := localserve.Reload(wctx, root, watch.Files{Template: "template.yaml", Sources: []string{"functions", "cmd", "internal"}}, stdout, func(ctx context.Context, c watch.Change) (string, error) {
		if len(c.Go) == 0 {
			return "", nil
		}
		next, out, err := build(ctx)
		if err != nil {
			return "", &localserve.BuildFailed{Output: out}
		}
		// One process at a time holds the bbolt file: the old one stops
		// before the new one starts, and if the new one fails the old
		// binary starts again.
		err = sw.Replace(func() (localserve.Generation, error) {
			g, err := start(next)
			if err != nil {
				back, rerr := start(current)
				return back, errors.Join(err, rerr)
			}
			return g, nil
		})
		if err != nil {
			return "", fmt.Errorf("the new code did not start (%w)", err)
		}
		current = next
		return "built and started", nil
	})
	if err != nil {
		stopWatch()
		return nil, err
	}
	return sync.OnceFunc(func() { stopWatch(); <-ended }), nil
}

// requestIDHeader names the request in the local API's answers, as
// API Gateway's x-amzn-RequestId does (cmd/localapi).
const requestIDHeader = "X-Amzn-Requestid"

// buildFolderPrefix names the temporary folder of each run's builds.
const buildFolderPrefix = "plantstore-run-"
