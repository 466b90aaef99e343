package startapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/plantstore/plantstore/tools/watchtest"
)

// make start-api WATCH=1 on a copy of the tree: an edited message of
// createplant is served after its rebuild, a gateway response edited in
// template.yaml after the reload, requests sent during a reload are all
// answered, a change that does not compile leaves the last good code
// serving with the compiler's error printed, and the first banner's token
// works throughout.
func TestReloads(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	tree := watchtest.CopyTree(t)
	boots := watchtest.Build(t, tree, []string{"AuthorizerFunction", "CreatePlantFunction"}, "")
	var stdout, stderr proctest.Output
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := []string{"start-api", "-p", "0", "-watch", "--build-dir", boots, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(tree, "template.yaml"),
		"-n", filepath.Join(tree, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite")}
	go func() {
		done <- cli.Run(ctx, args, func(k string) (string, bool) { v, ok := apiShell(t)[k]; return v, ok }, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	banner := stdout.Banner(t)
	post := func(token, body string) (int, string, error) {
		req, _ := http.NewRequest("POST", banner.URL+"/plants", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		var e struct{ Message string }
		json.Unmarshal(b, &e)
		return resp.StatusCode, e.Message, nil
	}
	expect := func(when, token, body string, status int, message string) {
		t.Helper()
		if code, msg, err := post(token, body); err != nil || code != status || !strings.HasPrefix(msg, message) {
			t.Errorf("%s: %d %q %v; want %d %q", when, code, msg, err, status, message)
		}
	}
	expect("before", banner.Token, `{"id":1,"name":}`, 400, "the body is not valid JSON")

	// Requests during the reload: any answer but a 5xx (the stage
	// throttle's 429 is an answer).
	var ids atomic.Int64
	stop := watchtest.During(2, func() error {
		code, _, err := post(banner.Token, fmt.Sprintf(`{"id":%d,"name":"Fern"}`, 5000+ids.Add(1)))
		if err != nil || code >= 500 {
			return fmt.Errorf("%d %v", code, err)
		}
		return nil
	})
	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`, `"the body is no JSON (at byte %d)"`)
	stdout.WaitFor(t, "; ready", 1)
	answered, failure := stop()
	if failure != nil || answered == 0 {
		t.Errorf("during the reload: %d answered, then %v", answered, failure)
	}
	expect("after the rebuild", banner.Token, `{"id":1,"name":}`, 400, "the body is no JSON")

	watchtest.Edit(t, filepath.Join(tree, "template.yaml"), "the bearer token is missing, invalid or expired", "no valid bearer token")
	stdout.WaitFor(t, "; ready", 2)
	expect("after the template's reload", "", `{"id":1,"name":"x"}`, 401, "no valid bearer token")

	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is no JSON (at byte %d)"`, `"the body is no JSON" +`)
	stdout.WaitFor(t, "the build failed", 1)
	if !strings.Contains(stdout.String(), "decode.go") {
		t.Errorf("the compiler's error is not printed:\n%s", stdout.String())
	}
	expect("after a failed build", banner.Token, `{"id":1,"name":}`, 400, "the body is no JSON")
	if code, _, err := post(banner.Token, `{"id":99999,"name":"Fern"}`); err != nil || (code != 200 && code != 429) {
		t.Errorf("the first banner's token after the reloads: %d %v", code, err)
	}
	t.Logf("make start-api WATCH=1 printed:\n%s\nrequests answered during the rebuild: %d", stdout.String(), answered)
	if n := strings.Count(stdout.String(), "Token ("); n != 1 {
		t.Errorf("%d banners, want one", n)
	}
}
