package startapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// A function whose init fails (LOG_LEVEL=bogus, which lambdainit refuses:
// it logs the reason and posts it to /runtime/init/error) is answered as
// API Gateway answers a Lambda proxy integration whose function failed:
// 502 in the template's DEFAULT_5XX shape ({"message": "Internal server
// error"} where a template has none), never a panic and an empty reply.
// So it is at the first request and the next (a new environment, which
// fails again), after a reload (WATCH=1) breaks a function that was warm,
// and for the authorizer (AUTHORIZER_FAILURE, 500). The init error is on
// the terminal: the function's own line, and the request's trace line.
func TestAFailedInitIsTheGateways5xx(t *testing.T) {
	t.Parallel()
	dir := bootstrapDir(t)
	tree := t.TempDir() // the template alone: edits of the env file reload without a build
	tpl, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "template.yaml"), tpl, 0o644); err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(tree, "env.json")
	writeEnv := func(broken string) { // broken: the function whose LOG_LEVEL is bogus
		t.Helper()
		env := fixtures.Env()
		env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9" // no request here reaches the store
		if broken != "" {
			env[broken]["LOG_LEVEL"] = "bogus"
		}
		raw, _ := json.Marshal(env)
		if err := os.WriteFile(envFile, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeEnv("CreatePlantFunction")
	shell := apiShell(t)
	args := []string{"start-api", "-p", "0", "-watch", "--build-dir", dir, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(tree, "template.yaml"),
		"-n", envFile, "--data-dir", filepath.Join(t.TempDir(), "dynalite")}
	l := watchtest.Launch(t, true, func(ctx context.Context, stdout, stderr io.Writer) error {
		return cli.Run(ctx, args, func(k string) (string, bool) { v, ok := shell[k]; return v, ok }, stdout, stderr)
	})
	create := fmt.Sprintf(`{"id":%d,"name":"Fern"}`, 424242)
	expect := func(when, body string, status int, errorType string, code int) {
		t.Helper()
		got, header, answer := apitest.Post(t, l.Banner.URL+"/plants", l.Banner.Token, body)
		var e struct {
			Error   int    `json:"error"`
			Message string `json:"message"`
		}
		if got != status || header.Get("X-Amzn-Errortype") != errorType || json.Unmarshal(answer, &e) != nil || e.Error != code || e.Message == "" {
			t.Errorf("%s: %d %s %s, want %d %s with error %d", when, got, header.Get("X-Amzn-Errortype"), answer, status, errorType, code)
		}
	}
	initFailed := regexp.MustCompile(`(?m)^\S+ POST /plants 502 error 50000 DEFAULT_5XX \S+ \| .* \| CreatePlantFunction \+\S+ \S+ cold, init failed: InitError: .*bogus.*$`)

	expect("the first request", create, 502, "DEFAULT_5XX", 50000)
	l.Stdout.WaitMatch(t, initFailed)
	expect("the next request", create, 502, "DEFAULT_5XX", 50000)
	if n := len(initFailed.FindAllString(l.Stdout.String(), -1)); n != 2 {
		t.Errorf("%d trace lines name the failed init, want 2:\n%s", n, l.Stdout.String())
	}
	if logs := l.Stderr.String(); strings.Count(logs, `"msg":"init failed"`) != 2 || !strings.Contains(logs, "bogus") {
		t.Errorf("the function's init error is not on the terminal, once per start:\n%s", logs)
	}

	writeEnv("")
	l.Stdout.WaitFor(t, "; ready", 1)
	expect("after a reload that mends it", `{"id":1,"name":}`, 400, "", 40001) // createplant's own answer: it runs, and stays warm

	writeEnv("CreatePlantFunction")
	l.Stdout.WaitFor(t, "; ready", 2)
	expect("after a reload that breaks it", create, 502, "DEFAULT_5XX", 50000)
	expect("the request after that", create, 502, "DEFAULT_5XX", 50000)

	writeEnv("AuthorizerFunction")
	l.Stdout.WaitFor(t, "; ready", 3)
	expect("a failed authorizer", create, 500, "AUTHORIZER_FAILURE", 50000)
	l.Stdout.WaitMatch(t, regexp.MustCompile(`(?m)^\S+ POST /plants 500 error 50000 AUTHORIZER_FAILURE \S+ \| .* \| AuthorizerFunction \+\S+ \S+ cold, init failed: InitError: .*bogus.*$`))
}
