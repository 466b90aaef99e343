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

// BuildDir is the folder t builds its functions into, kept from run to
// run as a developer's .aws-sam/samlocal/build is: the go command leaves
// an executable whose build ID matches what it would link as it is
// (cmd/go, "go build -o"), so a run links only what changed since the
// last one. Every build still runs and checks; none is skipped.
func BuildDir(t testing.TB) string {
	t.Helper()
	dir := StablePath(t, "builds")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
