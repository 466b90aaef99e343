// Bootstrap builds the functions' real bootstrap binaries for tests,
// through the same Makefile targets that `sam build` calls, for the host's
// architecture.

package lambdatest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"sync"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
)

// BootstrapsEnv names the folder of bootstraps that make test built.
const BootstrapsEnv = "PLANTSTORE_BOOTSTRAPS"

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// Bootstrap returns the path of function's bootstrap (a logical ID of
// template.yaml, such as CreatePlantFunction), built once per test binary
// with `make build-<function>`, or taken from the folder that
// $PLANTSTORE_BOOTSTRAPS names: make test builds every bootstrap once into
// <folder>/<function>/bootstrap (and <function>-debug/ for DebugBootstrap)
// and hands the folder to every test binary, instead of each binary
// linking its own. The folder is taken as it is: set the variable by hand
// and an edit since the last make test goes untested.
func Bootstrap(t testing.TB, function string) string {
	t.Helper()
	return build(t, function, false)
}

// DebugBootstrap is Bootstrap built for a debugger (the Makefile's
// DEBUG_BUILD=1: no optimisation or inlining, symbols kept).
func DebugBootstrap(t testing.TB, function string) string {
	t.Helper()
	return build(t, function, true)
}

func build(t testing.TB, function string, debug bool) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	key := function
	if debug {
		key += "-debug"
	}
	if path, ok := built[key]; ok {
		return path
	}
	if given := os.Getenv(BootstrapsEnv); given != "" {
		path := filepath.Join(given, key, "bootstrap")
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("%s=%s has no %s: %v", BootstrapsEnv, given, key, err)
		}
		built[key] = path
		return path
	}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "plantstore-bootstrap-"); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, key)
	args := []string{"--no-print-directory", "-C", root(), "build-" + function, "ARTIFACTS_DIR=" + out, "GOARCH=" + runtime.GOARCH}
	if debug {
		args = append(args, "DEBUG_BUILD=1")
	}
	if b, err := exec.Command("make", args...).CombinedOutput(); err != nil {
		t.Fatalf("make build-%s: %v\n%s", function, err, b)
	}
	built[key] = filepath.Join(out, "bootstrap")
	return built[key]
}

// Cleanup removes the binaries; call it from TestMain.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

func root() string { return srctree.Path() }

// Event reads events/<name>.json into a T and returns it with its bytes.
func Event[T any](t testing.TB, name string) (T, []byte) {
	t.Helper()
	var ev T
	raw, err := os.ReadFile(filepath.Join(root(), "events", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		t.Fatalf("events/%s.json: %v", name, err)
	}
	return ev, raw
}

// Golden compares the JSON got, indented, with testdata/<name>.golden.json
// in the test's package, or rewrites that file when update is set.
func Golden(t testing.TB, name string, got []byte, update bool) {
	t.Helper()
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, got, "", "  "); err != nil {
		t.Fatalf("%s: %s: %v", name, got, err)
	}
	pretty.WriteByte('\n')
	path := filepath.Join("testdata", name+".golden.json")
	if update {
		if err := os.WriteFile(path, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(pretty.Bytes(), want) {
		t.Errorf("%s: answer\n%s\nwant (%s)\n%s", name, pretty.Bytes(), path, want)
	}
}

// InitFails starts bin on a fresh Runtime API with env and fails t unless
// the function reports an init error naming want, never polls for work,
// exits non-zero, and logs exactly one line.
func InitFails(t *testing.T, bin string, env []string, want string) {
	t.Helper()
	p := Launch(t, bin, env)
	rt, fn, out := p.Runtime, p.fn, &p.Output
	select {
	case doc := <-rt.InitError():
		if !strings.Contains(string(doc), want) {
			t.Errorf("init error %s does not say %q", doc, want)
		}
	case <-time.After(time.Minute): // a hang only, however slow the machine
		t.Fatalf("no init error reported in a minute; output:\n%s", out.String())
	}
	select {
	case <-fn.Exited():
		if fn.Err() == nil {
			t.Error("the function exited 0 after a failed init")
		}
	case <-time.After(time.Minute): // a hang only
		t.Error("the function did not exit in a minute after a failed init")
	}
	select {
	case <-rt.FirstPoll():
		t.Error("a misconfigured function polled for invocations")
	default:
	}
	if n := strings.Count(strings.TrimSpace(out.String()), "\n") + 1; n != 1 || !strings.Contains(out.String(), want) {
		t.Errorf("init failure logged %d lines, want one line saying %q:\n%s", n, want, out.String())
	}
}
