package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/tools/bootstraps"
	"github.com/plantstore/plantstore/tools/fixtures"
	"github.com/plantstore/plantstore/tools/invokeapi"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/runtimeapi"
)

func TestMain(m *testing.M) {
	code := m.Run()
	bootstraps.Cleanup()
	proc.StopAll()
	os.Exit(code)
}

// codeDeploy records what the hook reports, as CodeDeploy's
// PutLifecycleEventHookExecutionStatus receives it (JSON 1.1 protocol).
type codeDeploy struct {
	*httptest.Server
	mu      sync.Mutex
	reports []report
}

type report struct {
	Target       string
	DeploymentID string `json:"deploymentId"`
	ExecutionID  string `json:"lifecycleEventHookExecutionId"`
	Status       string `json:"status"`
}

func newCodeDeploy(t *testing.T) *codeDeploy {
	c := &codeDeploy{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var rep report
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &rep); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rep.Target = r.Header.Get("X-Amz-Target")
		c.mu.Lock()
		c.reports = append(c.reports, rep)
		c.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.1")
		json.NewEncoder(w).Encode(map[string]string{"lifecycleEventHookExecutionId": rep.ExecutionID})
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *codeDeploy) all() []report {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]report(nil), c.reports...)
}

// startLambda is make start-lambda's server (tools/invokeapi before the real
// bootstraps, environments by SAM's rule through tools/localfn) for the two
// functions the hook proves, createplant's environment changed by env.
func startLambda(t *testing.T, createPlantEnv map[string]string, authorizerBin string) string {
	t.Helper()
	envFile := filepath.Join(t.TempDir(), "env.json")
	env := fixtures.Env()
	// createplant never reaches its store in the hook's check.
	maps.Copy(env["CreatePlantFunction"], map[string]string{"TABLE_NAME": fixtures.Table, "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9"})
	for k, v := range createPlantEnv {
		env["CreatePlantFunction"][k] = v
	}
	raw, _ := json.Marshal(env)
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	bins := map[string]string{"CreatePlantFunction": bootstraps.Bootstrap(t, "CreatePlantFunction"), "AuthorizerFunction": authorizerBin}
	fns, err := localfn.Prepare(context.Background(), localfn.Config{
		Template: filepath.Join("..", "..", "template.yaml"), EnvFile: envFile, DataDir: t.TempDir(),
		Bootstrap: func(fn string) string { return bins[fn] },
		LookupEnv: func(string) (string, bool) { return "", false }, Log: io.Discard,
	}, []string{"CreatePlantFunction", "AuthorizerFunction"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(fns.Close)
	var out bootstraps.Output
	functions := runtimeapi.NewFunctions(fns.Specs, &out)
	t.Cleanup(functions.Close)
	srv := httptest.NewServer(invokeapi.New(functions, []string{"CreatePlantFunction", "AuthorizerFunction"}, slog.New(slog.DiscardHandler)))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runHook runs the real hook bootstrap once with a CodeDeploy event and
// returns what it reported and how long the invocation took.
func runHook(t *testing.T, lambdaURL string, deploy *codeDeploy, timeout time.Duration) ([]report, time.Duration) {
	t.Helper()
	bin := bootstraps.Bootstrap(t, "PreTrafficFunction")
	rt, err := runtimeapi.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Close()
	var out bootstraps.Output
	fn, err := rt.Run(bin, []string{
		"CREATEPLANT_VERSION=CreatePlantFunction", "AUTHORIZER_VERSION=AuthorizerFunction", "METHOD_ARN=" + fixtures.LocalMethodARN,
		"AWS_ENDPOINT_URL_LAMBDA=" + lambdaURL, "AWS_ENDPOINT_URL_CODEDEPLOY=" + deploy.URL,
		"AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=test", "AWS_SECRET_ACCESS_KEY=test", "HOME=" + t.TempDir(),
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer fn.Stop()
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+10*time.Second)
	defer cancel()
	res, err := rt.Invoke(ctx, []byte(`{"DeploymentId":"d-TEST12345","LifecycleEventHookExecutionId":"exec-abc"}`), timeout)
	took := time.Since(start)
	if err != nil || res.Error != nil {
		t.Fatalf("the hook: %v %s\nits output:\n%s", err, res.Error, out.String())
	}
	t.Logf("the hook's log:\n%s", out.String())
	return deploy.all(), took
}

func wantReport(t *testing.T, got []report, status string) {
	t.Helper()
	if len(got) != 1 {
		t.Fatalf("the hook reported %d times (%+v), want once", len(got), got)
	}
	r := got[0]
	if r.Target != "CodeDeploy_20141006.PutLifecycleEventHookExecutionStatus" || r.DeploymentID != "d-TEST12345" || r.ExecutionID != "exec-abc" || r.Status != status {
		t.Errorf("the hook reported %+v, want %s for d-TEST12345 / exec-abc", r, status)
	}
}

func TestGoodReleaseSucceeds(t *testing.T) {
	t.Parallel()
	deploy := newCodeDeploy(t)
	url := startLambda(t, nil, bootstraps.Bootstrap(t, "AuthorizerFunction"))
	got, _ := runHook(t, url, deploy, 30*time.Second)
	wantReport(t, got, "Succeeded")
}

func TestCreatePlantThatFailsItsInitFails(t *testing.T) {
	t.Parallel()
	deploy := newCodeDeploy(t)
	url := startLambda(t, map[string]string{"TABLE_NAME": ""}, bootstraps.Bootstrap(t, "AuthorizerFunction"))
	got, _ := runHook(t, url, deploy, 30*time.Second)
	wantReport(t, got, "Failed")
}

func TestAuthorizerThatAllowsAMalformedTokenFails(t *testing.T) {
	t.Parallel()
	allowAll, err := proc.Build(t.TempDir(), "./functions/pretraffic/testdata/allowall")
	if err != nil {
		t.Fatal(err)
	}
	deploy := newCodeDeploy(t)
	url := startLambda(t, nil, allowAll)
	got, _ := runHook(t, url, deploy, 30*time.Second)
	wantReport(t, got, "Failed")
}

// A hook that cannot reach Lambda, or whose Lambda never answers, reports
// Failed before its own deadline instead of leaving CodeDeploy waiting.
func TestUnreachableOrSilentLambdaFailsWithinTheTimeout(t *testing.T) {
	t.Parallel()
	t.Run("nothing listens", func(t *testing.T) {
		t.Parallel()
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		closed := "http://" + ln.Addr().String()
		ln.Close()
		deploy := newCodeDeploy(t)
		got, _ := runHook(t, closed, deploy, 20*time.Second)
		wantReport(t, got, "Failed")
	})
	t.Run("never answers", func(t *testing.T) {
		t.Parallel()
		release := make(chan struct{})
		silent := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer silent.Close()
		defer close(release) // before Close, which waits for the handlers
		deploy := newCodeDeploy(t)
		timeout := 8 * time.Second
		got, took := runHook(t, silent.URL, deploy, timeout)
		wantReport(t, got, "Failed")
		if took >= timeout {
			t.Errorf("the hook took %v, not within its %v timeout", took, timeout)
		}
	})
}

// The checks themselves, on events the hook sends.
func TestLoadConfig(t *testing.T) {
	t.Parallel()
	if _, err := loadConfig(func(string) string { return "" }); err == nil || !strings.Contains(err.Error(), "CREATEPLANT_VERSION") {
		t.Errorf("loadConfig without variables: %v", err)
	}
}
