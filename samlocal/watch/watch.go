// Package watch tells the local tools (samlocal start-api and start-lambda
// --watch, make run WATCH=1) when the source they serve changed: fsnotify
// on the project's folders (it covers Linux and macOS), debounced so that a
// save of ten files is one change, each change sorted by what it touches:
// Go that builds (not tests), go.mod and go.sum, the template, the env
// file. A change elsewhere (docs, tests, testdata) is no change.
//
// Events are read all the time, also while a tool is busy with the last
// change (a build): the kernel's queue (fs.inotify.max_queued_events on
// Linux, 16384 by default) would otherwise overflow under a burst of files.
// An overflow loses events, so it is taken as "everything changed": the
// folders are walked again and every tool rebuilds. Any other failure of the
// watcher ends Run with the error, which the tools print.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Change is what one quiet period's events touched.
type Change struct {
	Go       []string // Go source of what ships (functions/, cmd/, internal/, go.mod, go.sum), relative paths
	Template bool     // the template
	EnvFile  bool     // the env-vars file the tool reads
	Overflow bool     // events were lost: treat everything as changed
}

// everything is the Change an overflow stands for.
func everything() Change {
	return Change{Go: []string{"(any Go file: the watcher's event queue overflowed)"}, Template: true, EnvFile: true, Overflow: true}
}

// batch is a Change being gathered, with the set of its Go files: a burst
// (a checkout, a generator) touches thousands, and each is looked up.
type batch struct {
	Change
	seen map[string]bool
}

// addGo adds the Go file g, once.
func (b *batch) addGo(g string) {
	if b.seen[g] {
		return
	}
	if b.seen == nil {
		b.seen = map[string]bool{}
	}
	b.seen[g] = true
	b.Go = append(b.Go, g)
}

// merge adds d to b.
func (b *batch) merge(d Change) {
	for _, g := range d.Go {
		b.addGo(g)
	}
	b.Template = b.Template || d.Template
	b.EnvFile = b.EnvFile || d.EnvFile
	b.Overflow = b.Overflow || d.Overflow
}

// Empty reports whether c touches nothing a tool serves.
func (c Change) Empty() bool { return len(c.Go) == 0 && !c.Template && !c.EnvFile && !c.Overflow }

func (c Change) String() string {
	var parts []string
	if len(c.Go) > 0 {
		parts = append(parts, strings.Join(c.Go, ", "))
	}
	if c.Template {
		parts = append(parts, "the template")
	}
	if c.EnvFile {
		parts = append(parts, "the env file")
	}
	return strings.Join(parts, ", ")
}

// skipped are folders never watched: testdata, what tools and version
// control keep (any folder whose name starts with "."), node_modules and
// vendor.
func skipped(name string) bool {
	return name == "testdata" || name == "node_modules" || name == "vendor" || strings.HasPrefix(name, ".") && name != "."
}

// Watcher sends a Change after each burst of edits.
type Watcher struct {
	root, template, envFile string
	sources                 []string // the folders watched for Go; none for every one
	debounce                time.Duration
	fsw                     *fsnotify.Watcher
	changes                 chan Change
	// events and errors are fsw's; a test may stand in for them.
	events <-chan fsnotify.Event
	errors <-chan error
}

// Files are what a Watcher watches beside Go: the template and the env
// file, each a path in the root or "".
type Files struct {
	Template, EnvFile string
	// Sources are the top folders of the root whose Go counts; none for
	// every folder.
	Sources []string
}

// New watches root (the project's folder) and files, sending a Change once
// debounce has passed without an event.
func New(root string, files Files, debounce time.Duration) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		fsw.Close()
		return nil, err
	}
	rel := func(p string) string {
		if filepath.IsAbs(p) {
			if r, err := filepath.Rel(root, p); err == nil {
				p = r
			}
		}
		return filepath.Clean(p)
	}
	w := &Watcher{root: root, template: rel(files.Template), envFile: rel(files.EnvFile), sources: files.Sources, debounce: debounce, fsw: fsw, changes: make(chan Change),
		events: fsw.Events, errors: fsw.Errors}
	if err := w.addDirs(); err != nil {
		fsw.Close()
		return nil, err
	}
	return w, nil
}

// addDirs watches the root, the env file's folder and every source folder.
func (w *Watcher) addDirs() error {
	dirs := []string{w.root}
	if w.envFile != "." {
		dirs = append(dirs, filepath.Join(w.root, filepath.Dir(w.envFile)))
	}
	tops := w.sources
	if len(tops) == 0 {
		tops = []string{"."}
	}
	for _, top := range tops {
		_ = filepath.WalkDir(filepath.Join(w.root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if skipped(d.Name()) && path != w.root {
				return filepath.SkipDir
			}
			dirs = append(dirs, path)
			return nil
		})
	}
	for _, d := range slices.Compact(slices.Sorted(slices.Values(dirs))) {
		if err := w.fsw.Add(d); err != nil {
			return err
		}
	}
	return nil
}

// Changes delivers the changes; it is closed when Run ends.
func (w *Watcher) Changes() <-chan Change { return w.changes }

// Run watches until ctx ends, or returns the watcher's failure. It reads
// events all the time: a change waits in ready, merged with later ones,
// until the tool takes it.
func (w *Watcher) Run(ctx context.Context) error {
	defer close(w.changes)
	defer w.fsw.Close()
	var pending, ready batch
	var quiet <-chan time.Time
	for {
		var out chan<- Change // nil, so never chosen, until a change is ready
		if !ready.Empty() {
			out = w.changes
		}
		select {
		case <-ctx.Done():
			return nil
		case err, ok := <-w.errors:
			if !ok {
				return errors.New("watch: the file watcher stopped")
			}
			if !errors.Is(err, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("watch: %w", err)
			}
			// Events were lost: walk the folders again (new ones may have
			// appeared) and rebuild everything.
			if err := w.addDirs(); err != nil {
				return fmt.Errorf("watch: after an overflow: %w", err)
			}
			pending.merge(everything())
			quiet = time.After(w.debounce)
		case ev, ok := <-w.events:
			if !ok {
				return errors.New("watch: the file watcher stopped")
			}
			if ev.Has(fsnotify.Create) {
				if st, err := os.Stat(ev.Name); err == nil && st.IsDir() && w.isSource(ev.Name) {
					_ = w.fsw.Add(ev.Name) // a new package folder; files made before the Add count too
					entries, _ := os.ReadDir(ev.Name)
					for _, e := range entries {
						if w.classify(filepath.Join(ev.Name, e.Name()), &pending) {
							quiet = time.After(w.debounce)
						}
					}
				}
			}
			if w.classify(ev.Name, &pending) {
				quiet = time.After(w.debounce)
			}
		case <-quiet:
			quiet = nil
			ready.merge(pending.Change)
			pending = batch{}
		case out <- ready.Change:
			ready = batch{}
		}
	}
}

func (w *Watcher) isSource(path string) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if rel == ".." || parts[0] == ".." || len(w.sources) > 0 && !slices.Contains(w.sources, parts[0]) {
		return false
	}
	return !slices.ContainsFunc(parts[:len(parts)-1], skipped)
}

// classify adds path to b when it is something a tool serves.
func (w *Watcher) classify(path string, b *batch) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil {
		return false
	}
	rel = filepath.Clean(rel)
	switch {
	case w.template != "." && rel == w.template:
		b.Template = true
	case w.envFile != "." && rel == w.envFile:
		b.EnvFile = true
	case filepath.Base(rel) == "go.mod" || filepath.Base(rel) == "go.sum",
		w.isSource(path) && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go"):
		b.addGo(filepath.ToSlash(rel))
	default:
		return false
	}
	return true
}
