package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/plantstore/plantstore/internal/childproc"
	"github.com/plantstore/plantstore/internal/proctest"
	"github.com/plantstore/plantstore/internal/srctree"

	"github.com/plantstore/plantstore/internal/devserver/devservertest"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/tools/watch/watchtest"
)

// TestMain runs the tests, or, with runMain=1 in its environment, the
// tool itself (as cmd/localapi's tests do): the signal tests run the
// binary's own main, signals and exit codes without a second build.
func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		os.Exit(0)
	}
	dynamotest.Main(m, lambdatest.Cleanup)
}

// runMain in a test binary's environment makes it make start-api.
const runMain = "PLANTSTORE_TEST_RUN_STARTAPI"

var root = srctree.Path()

// startAPI runs the tool as make start-api does, on a free port, with
// events/env.json and its own dynalite data directory, and waits for its banner.
func startAPI(t *testing.T) childproc.Banner {
	t.Helper()
	var dir string
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction"} {
		dir = filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, fn)))
	}
	return startAPIWith(t, dir)
}

// startAPIWith runs start-api on the bootstraps in dir (<Function>/bootstrap)
// with more flags, and returns its banner once it listens.
func startAPIWith(t *testing.T, dir string, flags ...string) childproc.Banner {
	t.Helper()
	banner, _ := startAPIOut(t, dir, flags...)
	return banner
}

// startAPIOut is startAPIWith that also returns what start-api prints.
func startAPIOut(t *testing.T, dir string, flags ...string) (childproc.Banner, *proctest.Output) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamotest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	shell := map[string]string{"PORT": "0"}
	args := []string{"startapi", "-bootstraps", dir, "-template", filepath.Join(root, "template.yaml"),
		"-env", filepath.Join(root, "events", "env.json"), "-data", filepath.Join(t.TempDir(), "dynalite")}
	args = append(args, flags...)
	return launch(t, func(ctx context.Context, stdout, stderr io.Writer) error {
		return command().Run(ctx, args, func(k string) (string, bool) { v, ok := shell[k]; return v, ok }, stdout, stderr)
	})
}

// launch runs serve (start-api's Run, or its Serve) until the test ends
// (watchtest.Launch) and returns its banner and what it prints.
func launch(t *testing.T, serve func(ctx context.Context, stdout, stderr io.Writer) error) (childproc.Banner, *proctest.Output) {
	t.Helper()
	l := watchtest.Launch(t, true, serve)
	return l.Banner, l.Stdout
}

// The whole chain from template.yaml passes the suite that make run passes,
// with the token it prints and tokens signed with events/env.json's secret.
func TestStartAPIPassesTheBlackBoxSuite(t *testing.T) {
	t.Parallel()
	banner := startAPI(t)
	devservertest.Run(t, devservertest.Target{
		URL: banner.URL, Secret: []byte(fixtures.Secret), Issuer: fixtures.Issuer, Audience: fixtures.Audience,
		Scope: fixtures.Scope, Gateway: true,
	})
	// The printed token is accepted too.
	devservertest.RunCreate(t, banner.URL, banner.Token)
}
