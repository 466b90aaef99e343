package localfn

import (
	"os/exec"
	"strings"
	"testing"
)

// Preparing functions needs no file watcher: make invoke and the tests that
// only prepare (the PreTraffic hook's) do not build fsnotify in. Watching
// and reloading live in localserve.
func TestPreparingPullsInNoWatcher(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "github.com/plantstore/plantstore/samlocal/lambdaemu\n") {
		t.Fatalf("go list -deps does not list what localfn imports:\n%s", out)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if strings.Contains(pkg, "fsnotify") || strings.HasSuffix(pkg, "/samlocal/watch") {
			t.Errorf("localfn depends on %s; keep watching in localserve", pkg)
		}
	}
}
