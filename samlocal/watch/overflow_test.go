package watch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// An overflow of the kernel's queue (injected) is a change of everything,
// after which the watcher goes on; any other failure ends Run with it.
func TestOverflowIsAChangeOfEverything(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write(t, filepath.Join(root, "internal", "a", "a.go"), "package a\n")
	w, err := New(root, Files{Template: "template.yaml"}, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	events, errs := make(chan fsnotify.Event), make(chan error)
	w.events, w.errors = events, errs
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // catches a hang only
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()

	errs <- fsnotify.ErrEventOverflow
	select {
	case c := <-w.Changes():
		if !c.Overflow || len(c.Go) == 0 || !c.Template || !c.EnvFile {
			t.Errorf("after an overflow: %+v, want everything", c)
		}
	case err := <-done:
		t.Fatalf("Run ended on an overflow: %v", err)
	case <-ctx.Done():
		t.Fatal("no change after an overflow")
	}
	events <- fsnotify.Event{Name: filepath.Join(root, "internal", "a", "a.go"), Op: fsnotify.Write}
	if c := <-w.Changes(); len(c.Go) != 1 || c.Overflow {
		t.Errorf("after the overflow, a save: %+v", c)
	}
	broken := errors.New("the inotify descriptor broke")
	errs <- broken
	if err := <-done; !errors.Is(err, broken) {
		t.Errorf("Run ended with %v, want the watcher's failure", err)
	}
	if _, open := <-w.Changes(); open {
		t.Error("Changes is still open after Run ended")
	}
}

// While a tool is busy with a change (a slow build takes none from
// Changes), a burst of 12,000 files is read as it comes: the kernel's queue
// (16,384 events by default) does not overflow into a lost watcher, and
// the next saves are still seen.
func TestABurstDuringABuildKeepsTheWatcher(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "internal", "gen")
	write(t, filepath.Join(dir, "keep.go"), "package gen\n")
	w, err := New(root, Files{Template: "template.yaml"}, 20*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // catches a hang only
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()

	// A save, then the burst, while nobody takes from Changes (as during a
	// build): the save is ready or still pending when the burst comes, and
	// either way the burst is read as it comes.
	write(t, filepath.Join(dir, "keep.go"), "package gen\n// 1\n")
	for i := range 12000 {
		write(t, filepath.Join(dir, fmt.Sprintf("tmp%05d.go", i)), "package gen\n")
	}
	// The "build" ends: take what is ready, then save once more.
	seen := 0
	for {
		select {
		case c, open := <-w.Changes():
			if !open {
				t.Fatalf("the watcher ended during the burst: %v", <-done)
			}
			seen++
			if strings.Contains(strings.Join(c.Go, " "), "internal/gen/last.go") {
				t.Logf("%d changes, the last with the final save", seen)
				return
			}
			if seen == 1 {
				write(t, filepath.Join(dir, "last.go"), "package gen\n")
			}
		case <-ctx.Done():
			t.Fatal("no change with the final save")
		}
	}
}
