package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

// A start whose code did not change since the last one links nothing: its
// first build is the kept executable, as the go command left it. The kept
// one is in the test's own folder, kept from run to run as the cache folder
// is.
func TestAStartWithNoChangeLinksNothing(t *testing.T) {
	t.Parallel()
	kept := filepath.Join(proctest.BuildDir(t), "localapi")
	root := srctree.Path()
	first := &builder{root: root, dir: t.TempDir(), kept: kept}
	made, out, err := first.build(context.Background())
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Kept holds what the build made, whether it linked or not.
	want, err := os.ReadFile(made)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(kept); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("kept does not hold the good build (%v)", err)
	}

	// The next start's first build, in two steps to see the file between.
	next := &builder{root: root, dir: t.TempDir(), kept: kept}
	bin := filepath.Join(next.dir, "localapi-1")
	if err := localfn.SeedFile(bin, kept); err != nil {
		t.Fatal(err)
	}
	seeded, err := os.Stat(bin)
	if err != nil {
		t.Fatalf("not seeded: %v", err)
	}
	if out, err := next.link(context.Background(), bin); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	built, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(seeded, built) {
		t.Error("the start linked cmd/localapi again with no change")
	}
}
