package startapi

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/tools/devtoken"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// TestMain runs the tests, or, with runMain=1 in its environment, the
// tool itself (as cmd/localapi's tests do): the signal tests run the
// binary's own main, signals and exit codes without a second build.
func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		cli.Main()
		os.Exit(0)
	}
	dynamoemutest.Main(m, lambdatest.Cleanup)
}

// runMain in a test binary's environment makes it make start-api.
const runMain = "PLANTSTORE_TEST_RUN_STARTAPI"

var root = srctree.Path()

// startAPI runs the tool as make start-api does, on a free port, with
// events/env.json and its own dynalite data directory, and waits for its banner.
func startAPI(t *testing.T) devserver.Banner {
	t.Helper()
	var dir string
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction"} {
		dir = filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, fn)))
	}
	return startAPIWith(t, dir)
}

// startAPIWith runs start-api on the bootstraps in dir (<Function>/bootstrap)
// with more flags, and returns its banner once it listens.
func startAPIWith(t *testing.T, dir string, flags ...string) devserver.Banner {
	t.Helper()
	banner, _ := startAPIOut(t, dir, flags...)
	return banner
}

// startAPIOut is startAPIWith that also returns what start-api prints.
func startAPIOut(t *testing.T, dir string, flags ...string) (devserver.Banner, *proctest.Output) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	shell := apiShell(t)
	args := []string{"start-api", "-p", "0", "--build-dir", dir, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(root, "template.yaml"),
		"-n", filepath.Join(root, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite")}
	args = append(args, flags...)
	return launch(t, func(ctx context.Context, stdout, stderr io.Writer) error {
		return cli.Run(ctx, args, func(k string) (string, bool) { v, ok := shell[k]; return v, ok }, stdout, stderr)
	})
}

// launch runs serve (start-api's Run, or its Serve) until the test ends
// (watchtest.Launch) and returns its banner and what it prints.
func launch(t *testing.T, serve func(ctx context.Context, stdout, stderr io.Writer) error) (devserver.Banner, *proctest.Output) {
	t.Helper()
	l := watchtest.Launch(t, true, serve)
	return l.Banner, l.Stdout
}

// The whole chain from template.yaml passes the suite that make run passes,
// with the token it prints and tokens signed with events/env.json's secret.
func TestStartAPIPassesTheBlackBoxSuite(t *testing.T) {
	t.Parallel()
	banner := startAPI(t)
	apitest.Run(t, apitest.Target{
		URL: banner.URL, Secret: []byte(fixtures.Secret), Issuer: fixtures.Issuer, Audience: fixtures.Audience,
		Scope: fixtures.Scope, Gateway: true,
	})
	// The printed token is accepted too.
	apitest.RunCreate(t, banner.URL, banner.Token)
}

// apiShell is the environment make start-api gives samlocal: the token
// Plant Store's authorizer accepts with events/env.json (bin/token) and
// the contract for the page's explorer.
func apiShell(t testing.TB) map[string]string {
	t.Helper()
	tok, err := devtoken.Sign(filepath.Join(root, "template.yaml"), filepath.Join(root, "events", "env.json"), "", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return map[string]string{"SAMLOCAL_TOKEN": tok, "SAMLOCAL_OPENAPI": filepath.Join(root, "api", "openapi.yaml")}
}
