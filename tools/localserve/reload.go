package localserve

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/plantstore/plantstore/internal/proctest"

	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/samtemplate"
	"github.com/plantstore/plantstore/tools/watch"
)

// Reloader rebuilds and reloads the functions of make start-api and make
// start-lambda on every change (WATCH=1).
type Reloader struct {
	Root      string                                        // the repository, where make builds
	Config    localfn.Config                                // as the first Prepare had it; Template is the path to read again
	Functions func(*samtemplate.Template) ([]string, error) // which functions the tool serves
	Next      func(*localfn.Set) (Generation, error)        // the handler on a newly prepared set
	Out       io.Writer                                     // one line per reload
}

// Run applies each change of w to sw until w's changes end. set is the
// first prepared set; its dynalite serves every generation.
func (r *Reloader) Run(ctx context.Context, w *watch.Watcher, sw *Swapper, set *localfn.Set) {
	dir, err := proctest.TempDir("plantstore-reload-")
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
			if out, err := localfn.Build(r.Root, gen, names, cfg.Debug); err != nil {
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
func (r *Reloader) Start(ctx context.Context, sw *Swapper, set *localfn.Set) error {
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
