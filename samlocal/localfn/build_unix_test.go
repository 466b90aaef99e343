//go:build unix

package localfn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A build ends with its context (a Ctrl-C during a WATCH=1 rebuild): make
// is interrupted, and once Build has returned nothing writes to the build
// folder, and what the go command leaves there when interrupted (its
// GOTMPDIR work folder, golang/go#25808) is gone.
func TestBuildStopsWithItsContext(t *testing.T) {
	t.Parallel()
	root, dir := t.TempDir(), t.TempDir()
	// A recipe that leaves a work folder in GOTMPDIR, as the go command
	// does, and writes its bootstrap a minute later.
	recipe := "build-%:\n\t@mkdir $$GOTMPDIR/go-build1 && sleep 60 && mkdir -p $(ARTIFACTS_DIR) && touch $(ARTIFACTS_DIR)/bootstrap\n"
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte(recipe), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	built := make(chan error, 1)
	go func() {
		_, err := Build(ctx, dir, makefileFns(root, "Fn"), "")
		built <- err
	}()
	started, stop := context.WithTimeout(context.Background(), time.Minute) // failure bounds, not measures
	defer stop()
	for {
		if entries, _ := filepath.Glob(filepath.Join(dir, "*", "go-build1")); len(entries) > 0 {
			break // make runs the recipe
		}
		select {
		case err := <-built:
			t.Fatalf("Build returned before its recipe ran: %v", err)
		case <-started.Done():
			t.Fatal("the recipe did not start within a minute")
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The recipe sleeps a minute: a Build that returns well before that
	// has stopped it, by the SIGINT or, when the recipe's shell lost that,
	// by the kill 10 s later (childproc.Run). Its own bound starts at the
	// cancel, so a slow start under load does not eat into it.
	cancel()
	select {
	case err := <-built:
		if err == nil {
			t.Error("an interrupted build reported no error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Build still runs 30s after its context ended")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the build folder: %v", entries)
	}
}

// A build whose context has ended starts no make (the next function of a
// WATCH=1 rebuild after a Ctrl-C): the stop waits for no further build.
func TestBuildStartsNoMakeOnceItsContextEnded(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "Makefile"), []byte("build-%:\n\t@touch ran-$*\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, t.TempDir(), makefileFns(root, "A", "B"), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Build after its context ended: %v, want %v", err, context.Canceled)
	}
	if ran, _ := filepath.Glob(filepath.Join(root, "ran-*")); len(ran) != 0 {
		t.Errorf("make ran: %v", ran)
	}
}
