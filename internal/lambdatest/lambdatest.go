// Package lambdatest builds the functions' real bootstrap binaries for tests,
// through the same Makefile targets that `sam build` calls, for the host's
// architecture.
package lambdatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
	dir   string
)

// Bootstrap returns the path of function's bootstrap (a logical ID of
// template.yaml, such as CreatePlantFunction), built once per test binary
// with `make build-<function>`.
func Bootstrap(t testing.TB, function string) string {
	t.Helper()
	mu.Lock()
	defer mu.Unlock()
	if path, ok := built[function]; ok {
		return path
	}
	if dir == "" {
		var err error
		if dir, err = os.MkdirTemp("", "plantstore-bootstrap-"); err != nil {
			t.Fatal(err)
		}
	}
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
	out := filepath.Join(dir, function)
	cmd := exec.Command("make", "--no-print-directory", "-C", root, "build-"+function, "ARTIFACTS_DIR="+out, "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("make build-%s: %v\n%s", function, err, b)
	}
	built[function] = filepath.Join(out, "bootstrap")
	return built[function]
}

// Cleanup removes the binaries; call it from TestMain.
func Cleanup() {
	if dir != "" {
		os.RemoveAll(dir)
	}
}

// Output collects a function's output; it is safe to read while the process
// writes.
type Output struct {
	mu  sync.Mutex
	buf []byte
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	return len(p), nil
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.buf)
}
