package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/tools/blackbox"
	"github.com/plantstore/plantstore/tools/bootstraps"
	"github.com/plantstore/plantstore/tools/emulator"
	"github.com/plantstore/plantstore/tools/fixtures"
	"github.com/plantstore/plantstore/tools/proc"
)

func TestMain(m *testing.M) { emulator.Main(m, bootstraps.Cleanup) }

var root = filepath.Join("..", "..", "..")

// startAPI runs the tool as make start-api does, on a free port, with
// events/env.json and its own dynalite data directory, and waits for its banner.
func startAPI(t *testing.T) proc.Banner {
	t.Helper()
	var dir string
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction"} {
		dir = filepath.Dir(filepath.Dir(bootstraps.Bootstrap(t, fn)))
	}
	return startAPIWith(t, dir)
}

// startAPIWith runs start-api on the bootstraps in dir (<Function>/bootstrap)
// with more flags, and returns its banner once it listens.
func startAPIWith(t *testing.T, dir string, flags ...string) proc.Banner {
	t.Helper()
	banner, _ := startAPIOut(t, dir, flags...)
	return banner
}

// startAPIOut is startAPIWith that also returns what start-api prints.
func startAPIOut(t *testing.T, dir string, flags ...string) (proc.Banner, *bootstraps.Output) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		emulator.Dynalite(t) // skips, or fails under CI, with the reason
	}
	shell := map[string]string{"PORT": "0"}
	args := []string{"startapi", "-bootstraps", dir, "-template", filepath.Join(root, "template.yaml"),
		"-env", filepath.Join(root, "events", "env.json"), "-data", filepath.Join(t.TempDir(), "dynalite")}
	args = append(args, flags...)
	return launch(t, func(ctx context.Context, stdout, stderr io.Writer) error {
		return command().Run(ctx, args, func(k string) (string, bool) { v, ok := shell[k]; return v, ok }, stdout, stderr)
	})
}

// launch runs serve (start-api's Run, or its Serve) until the test ends,
// when it must stop cleanly with one stopped line, and returns the banner
// once it listens and what it prints. The bounds only catch a hang.
func launch(t *testing.T, serve func(ctx context.Context, stdout, stderr io.Writer) error) (proc.Banner, *bootstraps.Output) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr bootstraps.Output
	done := make(chan error, 1)
	go func() { done <- serve(ctx, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("start-api: %v", err)
			}
			if n := strings.Count(stdout.String(), "stopped"); n != 1 {
				t.Errorf("%d stopped lines after a clean stop, want 1:\n%s", n, stdout.String())
			}
		case <-time.After(30 * time.Second):
			t.Error("start-api did not return within 30s of cancel")
		}
	})
	deadline := time.After(60 * time.Second)
	for {
		var banner proc.Banner
		for _, line := range strings.Split(stdout.String(), "\n") {
			banner.Line(line)
		}
		if banner.Complete(true) {
			return banner, &stdout
		}
		select {
		case err := <-done:
			t.Fatalf("start-api returned before it listened: %v\n%s", err, stderr.String())
		case <-deadline:
			t.Fatalf("no banner within 60s:\n%s\n%s", stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// The whole chain from template.yaml passes the suite that make run passes,
// with the token it prints and tokens signed with events/env.json's secret.
func TestStartAPIPassesTheBlackBoxSuite(t *testing.T) {
	t.Parallel()
	banner := startAPI(t)
	blackbox.Run(t, blackbox.Target{
		URL: banner.URL, Secret: []byte(fixtures.Secret), Issuer: fixtures.Issuer, Audience: fixtures.Audience,
		Scope: fixtures.Scope, Gateway: true,
	})
	// The printed token is accepted too.
	blackbox.RunCreate(t, banner.URL, banner.Token)
}
