package proctest

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
)

// StablePath is a folder for t's kind of files at the same path at every
// run of t in this checkout (a path below the system's temporary folder,
// named by the test's package folder and name). Go's build cache keys a
// package of the main module on its folder: a copy of a project at a new
// path each run compiles the whole module again, at the same path a run
// reuses the last run's packages.
func StablePath(t testing.TB, kind string) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(wd + "\x00" + t.Name()))
	return filepath.Join(os.TempDir(), "plantstore-"+kind, hex.EncodeToString(sum[:8]))
}

// CopyDir is a new, empty folder for t's copy of a project, at
// StablePath (a run reuses the last run's compiled packages), removed when
// t ends.
func CopyDir(t testing.TB) string {
	t.Helper()
	dir := StablePath(t, "copies")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing the copy: %v", err)
		}
	})
	return dir
}

// BuildDir is the folder t builds its functions into, kept from run to
// run as a developer's .aws-sam/samlocal/build is: the go command uses a
// target whose build ID holds the action ID it would build as built
// (cmd/go/internal/work/buildid.go, useCache), so a run links only what
// changed since the last one. Every build still runs and checks; none is
// skipped.
func BuildDir(t testing.TB) string {
	t.Helper()
	dir := StablePath(t, "builds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
