package localserve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/termsafe"

	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/watch"
)

// Reload is the reload loop of the local tools (WATCH=1): make start-api and
// make start-lambda reload their functions with a Reloader, make run
// replaces its whole server (tools/cmd/runfront). It watches root, and
// envFile when set, until ctx ends; each change goes to apply, and what
// apply did (done; "" for a change it leaves alone) or why it failed is one
// line on out. A failed apply leaves the last good version serving.
//
// The channel it returns is closed once the watching has stopped and the
// last apply has returned: a build under way when ctx ended has ended,
// and only then may the tool remove what the builds write (a build that
// goes on after the clean-up writes its folder again). A change that
// arrives once ctx has ended is not applied, and an apply cut short by the
// end (make interrupted by the same Ctrl-C) prints nothing.
//
// Those lines carry the repository's data (the names of the files that
// changed, the compiler's output, which names them again): each line is
// escaped (termsafe.Escape), as git writes a path with control characters
// (core.quotePath), so that a file named with ESC ]52 shows, never writes
// the clipboard.
func Reload(ctx context.Context, root string, files watch.Files, out io.Writer, apply func(context.Context, watch.Change) (done string, err error)) (<-chan struct{}, error) {
	out = termsafe.Escaper(out)
	w, err := watch.New(root, files, 150*time.Millisecond)
	if err != nil {
		return nil, err
	}
	go func() {
		if err := w.Run(ctx); err != nil {
			fmt.Fprintf(out, "reload: off: %v; what is serving stays, restart the command to reload again\n", err)
		}
	}()
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for c := range w.Changes() { // until Run has stopped
			if c.Empty() || ctx.Err() != nil {
				continue
			}
			start := time.Now()
			done, err := apply(ctx, c)
			var build *BuildFailed
			var unserved *Unserved
			switch {
			case ctx.Err() != nil:
			case errors.As(err, &unserved):
				fmt.Fprintf(out, "reload: %s changed; %v; nothing serves (503) until the next change\n", c, unserved.Err)
			case errors.As(err, &build):
				fmt.Fprintf(out, "reload: %s changed; the build failed, the last good code keeps serving:\n%s\n", c, strings.TrimRight(build.Output, "\n"))
			case err != nil:
				fmt.Fprintf(out, "reload: %s changed; %v; the last good version keeps serving\n", c, err)
			case done != "":
				fmt.Fprintf(out, "reload: %s changed; %s in %s; ready\n", c, done, time.Since(start).Round(time.Millisecond))
			}
		}
	}()
	return ended, nil
}

// BuildFailed is apply's error for a build that failed; Reload prints its
// output whole.
type BuildFailed struct{ Output string }

func (b *BuildFailed) Error() string { return "the build failed" }

// Unserved is apply's error for a generation that did not start after
// the last one closed (Reloader.Replace).
type Unserved struct{ Err error }

func (u *Unserved) Error() string { return u.Err.Error() }

// Reloader rebuilds and reloads the functions of make start-api and make
// start-lambda on every change (WATCH=1).
type Reloader struct {
	Root      string                                        // the project's folder, which is watched
	Config    localfn.Config                                // as the first Prepare had it; Template is the path to read again
	Functions func(*samtemplate.Template) ([]string, error) // which functions the tool serves
	Notes     func(*samtemplate.Template) []string          // what the tool does not serve of the template (Tool.Notes); nil for none
	Next      func(*localfn.Set) (Generation, error)        // the handler on a newly prepared set
	Out       io.Writer                                     // one line per reload
	// Replace closes the last generation before the next starts
	// (Swapper.Replace), for generations that may not run at once: under
	// a debugger both would listen on Delve's one address.
	Replace bool
}

// Start runs the reloads until ctx ends: set is the first prepared set, and
// its dynalite serves every generation. The builds go to a temporary
// folder that childproc.StopAll removes; the channel (Reload's) is closed
// once the last build has ended.
func (r *Reloader) Start(ctx context.Context, sw *Swapper, set *localfn.Set) (<-chan struct{}, error) {
	dir, err := childproc.TempDir("samlocal-reload-")
	if err != nil {
		return nil, err
	}
	builds := 0
	cfg := r.Config
	return Reload(ctx, r.Root, watch.Files{Template: r.Config.Template, EnvFile: r.Config.EnvFile}, r.Out, func(ctx context.Context, c watch.Change) (string, error) {
		tpl, err := cfg.Load()
		if err != nil {
			return "", err
		}
		names, err := r.Functions(tpl)
		if err != nil {
			return "", err
		}
		done := "reloaded the template and environments"
		if len(c.Go) > 0 {
			builds++
			gen := filepath.Join(dir, "build-"+strconv.Itoa(builds))
			fns, _, err := tpl.GoFunctions()
			if err != nil {
				return "", err
			}
			fns = slices.DeleteFunc(fns, func(f samtemplate.Function) bool { return !slices.Contains(names, f.ID) })
			// The last generation's executables seed this one: only what
			// changed links again.
			if err := localfn.Seed(gen, fns, cfg.ExecutableOf); err != nil {
				return "", err
			}
			// A stop waits for one function's build at most (localfn.Build).
			if out, err := localfn.Build(ctx, gen, fns, cfg.Debug); err != nil {
				return "", &BuildFailed{Output: out}
			}
			cfg.BuildDir, cfg.Bootstrap = gen, nil
			done = "rebuilt " + strings.Join(names, ", ")
		}
		next, err := set.Reload(ctx, tpl, cfg, names)
		if err != nil {
			return "", err
		}
		if r.Replace {
			if err := sw.Replace(func() (Generation, error) { return r.Next(next) }); err != nil {
				return "", &Unserved{err}
			}
		} else {
			g, err := r.Next(next)
			if err != nil {
				return "", err
			}
			sw.Swap(g)
		}
		if r.Notes != nil && c.Template {
			for _, n := range r.Notes(tpl) {
				fmt.Fprintf(termsafe.Escaper(r.Out), "samlocal: %s\n", n)
			}
		}
		return done, nil
	})
}
