// Package watchtest is what the tests of the local tools share: a copy of
// the repository to edit, and output that a test can wait on, line by line
// (proctest.Output is this Output).
package watchtest

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/proctest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// CopyTree copies the files git tracks (and node_modules' dynalite link,
// when there) into a new folder and returns it.
func CopyTree(t testing.TB) string {
	t.Helper()
	root := repoRoot()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	var tracked []string
	for _, f := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil { // not deleted in the work tree
			tracked = append(tracked, f)
		}
	}
	dst := CopyFiles(t, tracked...)
	if _, err := os.Stat(filepath.Join(root, "node_modules")); err == nil {
		if err := os.Symlink(filepath.Join(root, "node_modules"), filepath.Join(dst, "node_modules")); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// CopyFiles copies the repository's files rel (slash-separated paths below
// its root) into a new folder (proctest.CopyDir), at the same paths, and
// returns it.
func CopyFiles(t testing.TB, rel ...string) string {
	t.Helper()
	root, dst := repoRoot(), proctest.CopyDir(t)
	for _, f := range rel {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if err != nil {
			t.Fatal(err)
		}
		to := filepath.Join(dst, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

func repoRoot() string { return srctree.Path() }

// Edit replaces old by new in the file at path, which must hold old.
func Edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not hold %q", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// During sends requests with send from workers goroutines until the
// returned stop is called; stop reports how many were answered and the
// first failure (send's error), if any.
func During(workers int, send func() error) (stop func() (answered int64, failure error)) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var n int64
	var first error
	for range workers {
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				err := send()
				mu.Lock()
				if err == nil {
					n++
				} else if first == nil {
					first = err
				}
				mu.Unlock()
			}
		})
	}
	return func() (int64, error) {
		close(done)
		wg.Wait()
		return n, first
	}
}

// Launched is a tool that a test runs until it ends.
type Launched struct {
	Banner         devserver.Banner
	Stdout, Stderr *proctest.Output
	Stop           func() // stops it now; the test's end stops it too
}

// Launch runs serve (a tool's Run) until the test ends or Stop, and returns
// once its banner is complete (with a token, when wantToken). Stopped, serve
// must return nil and have printed one "stopped" line. The bounds only
// catch a hang.
func Launch(t *testing.T, wantToken bool, serve func(ctx context.Context, stdout, stderr io.Writer) error) *Launched {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	l := &Launched{Stdout: &proctest.Output{}, Stderr: &proctest.Output{}}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, l.Stdout, l.Stderr) }()
	var once sync.Once
	l.Stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("stopped: %v", err)
				}
				if n := strings.Count(l.Stdout.String(), "stopped"); n != 1 {
					t.Errorf("%d stopped lines after a clean stop, want 1:\n%s", n, l.Stdout.String())
				}
			case <-time.After(time.Minute):
				t.Errorf("not stopped within a minute of cancel:\n%s", l.Stdout.String())
			}
		})
	}
	t.Cleanup(l.Stop)
	deadline := time.After(3 * time.Minute)
	for {
		var banner devserver.Banner
		for _, line := range strings.Split(l.Stdout.String(), "\n") {
			banner.Line(line)
		}
		if banner.Complete(wantToken) {
			l.Banner = banner
			return l
		}
		select {
		case err := <-done:
			done <- err // for Stop
			t.Fatalf("returned before it listened: %v\n%s\n%s", err, l.Stdout.String(), l.Stderr.String())
		case <-deadline:
			t.Fatalf("no banner within 3 minutes:\n%s\n%s", l.Stdout.String(), l.Stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// Build builds the functions named of the template in tree, as samlocal
// builds them, the one named debug for a debugger, into t's build folder
// (proctest.BuildDir: an executable whose code did not change since the
// last run is not linked again), and returns the folder.
func Build(t testing.TB, tree string, names []string, debug string) string {
	t.Helper()
	tpl, err := samtemplate.Load(filepath.Join(tree, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		t.Fatal(err)
	}
	fns = slices.DeleteFunc(fns, func(f samtemplate.Function) bool { return !slices.Contains(names, f.ID) })
	dir := proctest.BuildDir(t)
	if out, err := localfn.Build(context.Background(), dir, fns, debug); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return dir
}
