package cli

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

// A template is a pull request's data, and so is every request: what
// start-api prints of either reaches the terminal escaped for every kind
// of API and route, as for Plant Store's REST API (tools/cmd/startapi:
// TestRepositoryDataIsPrintedEscaped). A route path, an API's stage and a
// function's FunctionName that write the clipboard (OSC 52) are shown
// escaped in the lines said at start, the Mounting lines, the banner and
// the trace line of a request whose path does the same; no function needs
// to run for it.
func TestAPIsAndRequestsArePrintedEscaped(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const template = `
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap, CodeUri: .}
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Rest: {Type: Api, Properties: {Path: "/r\e]52;c;ZXZpbA==\a/{id}", Method: get}}
        Http: {Type: HttpApi, Properties: {ApiId: !Ref HttpApi, Path: "/h\e]52;c;ZXZpbA==\a", Method: get}}
  HttpApi:
    Type: AWS::Serverless::HttpApi
    Properties: {StageName: "s\e]52;c;ZXZpbA==\a\u009b31m"}
  Py:
    Type: AWS::Serverless::Function
    Properties:
      Runtime: python3.12
      Handler: app.handler
      FunctionName: "py\e]52;c;ZXZpbA==\a"
      Events:
        Get: {Type: Api, Properties: {Path: "/py\e]52;c;ZXZpbA==\a", Method: get}}
`
	path := filepath.Join(dir, "template.yaml")
	if err := os.WriteFile(path, []byte(template), 0o600); err != nil {
		t.Fatal(err)
	}
	var stderr proctest.Output
	cfg, err := ServerConfig("start-api", []string{"-t", path, "-p", "0", "--data-dir", filepath.Join(dir, "data")}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Bootstrap = func(fn string) string { return filepath.Join(dir, "missing", fn) } // never started: no request reaches it
	ctx, cancel := context.WithCancel(context.Background())
	var stdout proctest.Output
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "start-api", cfg, noEnv, &stdout, &stderr) }()
	defer func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second): // a failure bound, not a measure
			t.Error("start-api did not stop")
		}
	}()
	url := stdout.Banner(t).URL
	resp, err := http.Get(url + devservertest.HostilePath)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 {
		t.Errorf("a path no API has: %d, want 403", resp.StatusCode)
	}
	stdout.WaitFor(t, devservertest.HostilePathEscaped, 1)
	for _, want := range []string{
		`Mounting Fn at ` + url + `/r\x1b]52;c;ZXZpbA==\a/{id} [GET] (ServerlessRestApi)`,
		`HttpApi (HTTP API, stage s\x1b]52;c;ZXZpbA==\a\u009b31m)`,
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout.String())
		}
	}
	if want := `samlocal: ServerlessRestApi: GET /py\x1b]52;c;ZXZpbA==\a (Py event Get) is not served`; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
	devservertest.NothingObeyed(t, map[string]string{"stdout": stdout.String(), "stderr": stderr.String()})
}
