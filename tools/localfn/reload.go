package localfn

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/samtemplate"
	"github.com/plantstore/plantstore/tools/watch"
)

// Generation is what one build of the functions serves: its handler, and
// how to stop its processes.
type Generation struct {
	Handler http.Handler
	Close   func()
}

type generation struct {
	Generation
	inflight sync.WaitGroup
}

// DrainTimeout bounds how long a swapped-out generation may finish its
// requests before it is closed anyway: the gateway's own bounds (30 s for a
// body, 29 s for an integration) fit inside it, so only a request that hangs
// (or one stopped at a breakpoint) is cut, with the function's error.
const DrainTimeout = 60 * time.Second

// Swapper serves the current generation. A swap sends new requests to the
// next one at once; the old one finishes the requests it has, for Drain at
// most (DrainTimeout when 0), then closes.
type Swapper struct {
	Drain time.Duration

	mu  sync.Mutex
	cur *generation
}

// NewSwapper serves g.
func NewSwapper(g Generation) *Swapper { return &Swapper{cur: &generation{Generation: g}} }

func (s *Swapper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	g := s.cur
	g.inflight.Add(1)
	s.mu.Unlock()
	defer g.inflight.Done()
	g.Handler.ServeHTTP(w, r)
}

// Swap serves next from now on.
func (s *Swapper) Swap(next Generation) {
	s.mu.Lock()
	old := s.cur
	s.cur = &generation{Generation: next}
	s.mu.Unlock()
	drain := s.Drain
	if drain == 0 {
		drain = DrainTimeout
	}
	go func() {
		drained := make(chan struct{})
		go func() { old.inflight.Wait(); close(drained) }()
		timer := time.NewTimer(drain)
		defer timer.Stop()
		select {
		case <-drained:
		case <-timer.C:
		}
		old.Close()
	}()
}

// Close stops the current generation once its requests are done.
func (s *Swapper) Close() {
	s.mu.Lock()
	g := s.cur
	s.mu.Unlock()
	g.inflight.Wait()
	g.Close()
}

// Reloader rebuilds and reloads the functions of make start-api and make
// start-lambda on every change (WATCH=1).
type Reloader struct {
	Root      string                                        // the repository, where make builds
	Config    Config                                        // as the first Prepare had it; Template is the path to read again
	Functions func(*samtemplate.Template) ([]string, error) // which functions the tool serves
	Next      func(*Set) (Generation, error)                // the handler on a newly prepared set
	Out       io.Writer                                     // one line per reload
}

// Run applies each change of w to sw until w's changes end. set is the
// first prepared set; its dynalite serves every generation.
func (r *Reloader) Run(ctx context.Context, w *watch.Watcher, sw *Swapper, set *Set) {
	dir, err := proc.TempDir("plantstore-reload-")
	if err != nil {
		fmt.Fprintf(r.Out, "reload: off (%v)\n", err)
		return
	}
	builds := 0
	cfg := r.Config
	for c := range w.Changes() {
		if c.Empty() {
			continue
		}
		start := time.Now()
		tpl, err := samtemplate.Load(cfg.Template)
		if err != nil {
			fmt.Fprintf(r.Out, "reload: %s changed; %v; the last good version keeps serving\n", c, err)
			continue
		}
		names, err := r.Functions(tpl)
		if err != nil {
			fmt.Fprintf(r.Out, "reload: %s changed; %v; the last good version keeps serving\n", c, err)
			continue
		}
		what := "reloaded the template and environments"
		if len(c.Go) > 0 {
			builds++
			gen := filepath.Join(dir, "build-"+strconv.Itoa(builds))
			if out, err := Build(r.Root, gen, names, cfg.Debug); err != nil {
				fmt.Fprintf(r.Out, "reload: %s changed; the build failed, the last good code keeps serving:\n%s", c, strings.TrimRight(out, "\n")+"\n")
				continue
			}
			cfg.Bootstrap = func(fn string) string { return filepath.Join(gen, fn, "bootstrap") }
			what = "rebuilt " + strings.Join(names, ", ")
		}
		next, err := set.Reload(ctx, tpl, cfg, names)
		if err == nil {
			var g Generation
			if g, err = r.Next(next); err == nil {
				sw.Swap(g)
			}
		}
		if err != nil {
			fmt.Fprintf(r.Out, "reload: %s changed; %v; the last good version keeps serving\n", c, err)
			continue
		}
		fmt.Fprintf(r.Out, "reload: %s changed; %s in %s; ready\n", c, what, time.Since(start).Round(time.Millisecond))
	}
}

// Start watches r.Root and r.Config.EnvFile and runs the reloads until ctx
// ends (make start-api WATCH=1, make start-lambda WATCH=1).
func (r *Reloader) Start(ctx context.Context, sw *Swapper, set *Set) error {
	w, err := watch.New(r.Root, r.Config.EnvFile, 150*time.Millisecond)
	if err != nil {
		return err
	}
	go func() {
		if err := w.Run(ctx); err != nil {
			fmt.Fprintf(r.Out, "reload: off: %v; what is serving stays, restart the command to reload again\n", err)
		}
	}()
	go r.Run(ctx, w, sw, set)
	return nil
}
