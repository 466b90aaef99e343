package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plantstore/plantstore/tools/watchtest"
)

// TestMain runs the tests, or, with runMain=1 in its environment, the
// tool itself (as cmd/localapi's tests do): the signal tests run the
// binary's own main, signals and exit codes without a second build.
func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		os.Exit(0)
	}
	before := buildFolders()
	code := m.Run()
	// Every run the tests made has returned: none left its builds in the
	// temporary folder.
	left := slices.DeleteFunc(buildFolders(), func(d string) bool { return slices.Contains(before, d) })
	if code == 0 && len(left) > 0 {
		fmt.Fprintf(os.Stderr, "run returned and left its build folder: %s (or a make run started during the tests is still running)\n", strings.Join(left, ", "))
		code = 1
	}
	os.Exit(code)
}

// buildFolders are the build folders of every make run on this machine.
func buildFolders() []string {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), buildFolderPrefix+"*"))
	return dirs
}

// runMain in a test binary's environment makes it make run TRACE=1.
const runMain = "PLANTSTORE_TEST_RUN_RUNFRONT"

// make run WATCH=1 on a copy of the tree: an edited error message is served
// after the reload, requests sent during it all get an answer (never a
// connection error or a 5xx), a change that does not compile leaves the last
// good code serving and prints the compiler's error, and the first banner's
// token works throughout.
func TestReloads(t *testing.T) {
	t.Parallel()
	root := watchtest.CopyTree(t)
	env := append(os.Environ(), "PORT=0", "STORE_PATH="+filepath.Join(t.TempDir(), "plants.db"))
	l := watchtest.Launch(t, true, func(ctx context.Context, stdout, stderr io.Writer) error {
		return run(ctx, env, stdout, stderr, root, true)
	})
	banner, stdout := l.Banner, l.Stdout
	missingToken := func() (int, string, error) { // the message of the 401 without a token
		resp, err := http.Post(banner.URL+"/plants", "application/json", strings.NewReader(`{"id":1,"name":"x"}`))
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		var e struct{ Message string }
		b, _ := io.ReadAll(resp.Body)
		json.Unmarshal(b, &e)
		return resp.StatusCode, e.Message, nil
	}
	var ids atomic.Int64
	create := func() (int, error) { // with the first banner's token
		body := fmt.Sprintf(`{"id":%d,"name":"Fern"}`, 1000+ids.Add(1))
		req, _ := http.NewRequest("POST", banner.URL+"/plants", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+banner.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, msg, err := missingToken(); err != nil || code != 401 || msg != "a bearer token is required" {
		t.Fatalf("before: %d %q %v", code, msg, err)
	}

	// Requests during the reload: each must be answered 200.
	stop := watchtest.During(4, func() error {
		if code, err := create(); err != nil || code != 200 {
			return fmt.Errorf("%d %v", code, err)
		}
		return nil
	})
	watchtest.Edit(t, filepath.Join(root, "internal", "httpapi", "errors.go"), `"a bearer token is required"`, `"a bearer token is needed here"`)
	stdout.WaitFor(t, "; ready", 1)
	answered, failure := stop()
	if failure != nil || answered == 0 {
		t.Errorf("during the reload: %d answered, then %v", answered, failure)
	}
	if code, msg, err := missingToken(); err != nil || code != 401 || msg != "a bearer token is needed here" {
		t.Errorf("after the reload: %d %q %v, want the edited message", code, msg, err)
	}

	// A change that does not compile: the old code keeps serving.
	watchtest.Edit(t, filepath.Join(root, "internal", "httpapi", "errors.go"), `"a bearer token is needed here"`, `"a bearer token" + `)
	stdout.WaitFor(t, "the build failed", 1)
	if !strings.Contains(stdout.String(), "errors.go") {
		t.Errorf("the compiler's error is not printed:\n%s", stdout.String())
	}
	if code, msg, err := missingToken(); err != nil || msg != "a bearer token is needed here" || code != 401 {
		t.Errorf("after a failed build: %d %q %v, want the last good code", code, msg, err)
	}
	if code, err := create(); err != nil || code != 200 {
		t.Errorf("the first banner's token after the reloads: %d %v", code, err)
	}
	t.Logf("what make run WATCH=1 printed:\n%s", stdout.String())
	t.Logf("requests answered during the reload: %d", answered)
	if n := strings.Count(stdout.String(), "Token ("); n != 1 {
		t.Errorf("%d banners, want one:\n%s", n, stdout.String())
	}
}
