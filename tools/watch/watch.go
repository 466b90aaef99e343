// Package watch tells the local tools (make run, make start-api, make
// start-lambda with WATCH=1) when the source they serve changed: fsnotify
// on the repository's folders (it covers Linux and macOS), debounced so that
// a save of ten files is one change, each change sorted by what it touches.
// A change elsewhere (docs, tests, testdata) is no change.
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
	Template bool     // template.yaml
	EnvFile  bool     // the env-vars file the tool reads
	Overflow bool     // events were lost: treat everything as changed
}

// everything is the Change an overflow stands for.
func everything() Change {
	return Change{Go: []string{"(any Go file: the watcher's event queue overflowed)"}, Template: true, EnvFile: true, Overflow: true}
}

// merge adds d to c.
func (c *Change) merge(d Change) {
	for _, g := range d.Go {
		if !slices.Contains(c.Go, g) {
			c.Go = append(c.Go, g)
		}
	}
	c.Template = c.Template || d.Template
	c.EnvFile = c.EnvFile || d.EnvFile
	c.Overflow = c.Overflow || d.Overflow
}

// Empty reports whether c touches nothing a tool serves.
func (c Change) Empty() bool { return len(c.Go) == 0 && !c.Template && !c.EnvFile && !c.Overflow }

func (c Change) String() string {
	var parts []string
	if len(c.Go) > 0 {
		parts = append(parts, strings.Join(c.Go, ", "))
	}
	if c.Template {
		parts = append(parts, "template.yaml")
	}
	if c.EnvFile {
		parts = append(parts, "the env file")
	}
	return strings.Join(parts, ", ")
}

// sources are the folders whose Go files ship.
var sources = []string{"functions", "cmd", "internal"}

// Watcher sends a Change after each burst of edits.
type Watcher struct {
	root, envFile string
	debounce      time.Duration
	fsw           *fsnotify.Watcher
	changes       chan Change
	// events and errors are fsw's; a test may stand in for them.
	events <-chan fsnotify.Event
	errors <-chan error
}

// New watches root (the repository) and envFile (a path in root, or ""), sending a Change once debounce has passed without an event.
func New(root, envFile string, debounce time.Duration) (*Watcher, error) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if root, err = filepath.Abs(root); err != nil {
		fsw.Close()
		return nil, err
	}
	if filepath.IsAbs(envFile) {
		if rel, err := filepath.Rel(root, envFile); err == nil {
			envFile = rel
		}
	}
	w := &Watcher{root: root, envFile: filepath.Clean(envFile), debounce: debounce, fsw: fsw, changes: make(chan Change),
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
	for _, top := range sources {
		_ = filepath.WalkDir(filepath.Join(w.root, top), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() != "testdata" {
				dirs = append(dirs, path)
			}
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
	var pending, ready Change
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
			ready.merge(pending)
			pending = Change{}
		case out <- ready:
			ready = Change{}
		}
	}
}

func (w *Watcher) isSource(path string) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil {
		return false
	}
	top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	return slices.Contains(sources, top) && !strings.Contains(filepath.ToSlash(rel), "/testdata")
}

// classify adds path to c when it is something a tool serves.
func (w *Watcher) classify(path string, c *Change) bool {
	rel, err := filepath.Rel(w.root, path)
	if err != nil {
		return false
	}
	rel = filepath.Clean(rel)
	switch {
	case rel == "template.yaml":
		c.Template = true
	case w.envFile != "." && rel == w.envFile:
		c.EnvFile = true
	case rel == "go.mod" || rel == "go.sum",
		w.isSource(path) && strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go"):
		rel = filepath.ToSlash(rel)
		if !slices.Contains(c.Go, rel) {
			c.Go = append(c.Go, rel)
		}
	default:
		return false
	}
	return true
}
