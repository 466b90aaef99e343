package startlambda

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/localserve"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// server is make start-lambda run by a test.
type server struct {
	url            string
	stdout, stderr *proctest.Output
}

// startServer runs make start-lambda's serve with the bootstraps in dir,
// events/env.json's environments with createplant's store on a closed port
// (no dynalite) and each function's changed by envs, the shell shell (PORT
// 0 unless it says), and cfg as adjust leaves it; it waits for the banner.
func startServer(t *testing.T, dir string, envs map[string]map[string]string, shell map[string]string, adjust func(*localserve.Config), args ...string) *server {
	t.Helper()
	env := fixtures.Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9"
	for fn, vars := range envs {
		maps.Copy(env[fn], vars)
	}
	raw, _ := json.Marshal(env)
	envFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok := shell["PORT"]; !ok {
		shell["PORT"] = "0"
	}
	lookupEnv := func(k string) (string, bool) { v, ok := shell[k]; return v, ok }
	args = append([]string{"-p", shell["PORT"], "--build-dir", dir, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(root, "template.yaml"),
		"-n", envFile, "--data-dir", filepath.Join(t.TempDir(), "dynalite")}, args...)
	var parsing proctest.Output
	cfg, err := cli.ServerConfig("start-lambda", args, &parsing)
	if err != nil {
		t.Fatalf("%v\n%s", err, parsing.String())
	}
	if adjust != nil {
		adjust(&cfg)
	}
	l := watchtest.Launch(t, false, func(ctx context.Context, stdout, stderr io.Writer) error {
		return cli.Serve(ctx, "start-lambda", cfg, lookupEnv, stdout, stderr)
	})
	return &server{url: l.Banner.URL, stdout: l.Stdout, stderr: l.Stderr}
}

// A web page cannot invoke a function: not by DNS rebinding (its own name
// in Host) and not by a simple POST (text/plain) with its Origin. Both get
// Lambda's 403 AccessDeniedException in the Invoke API's error shape,
// before any function runs. Programs on this machine, and a Host named by
// -allow-host, pass.
func TestWebPagesAreRefused(t *testing.T) {
	t.Parallel()
	// No bootstrap is there: a request let through to a function fails 500.
	s := startServer(t, t.TempDir(), nil, map[string]string{}, nil, "-allow-host", "devbox.test")
	port := s.url[strings.LastIndex(s.url, ":")+1:]
	for _, tc := range []struct {
		name, host, origin, function string
		status                       int
		errorType                    string
	}{
		{"DNS rebinding", "rebind.example:" + port, "", "CreatePlantFunction", 403, "AccessDeniedException"},
		{"a simple POST from a page elsewhere", "127.0.0.1:" + port, "https://evil.example", "CreatePlantFunction", 403, "AccessDeniedException"},
		{"rebinding, the page's own origin", "rebind.example:" + port, "http://rebind.example:" + port, "CreatePlantFunction", 403, "AccessDeniedException"},
		{"a program on loopback", "127.0.0.1:" + port, "", "Nope", 404, "ResourceNotFound"},
		{"a program naming localhost", "localhost:" + port, "", "Nope", 404, "ResourceNotFound"},
		{"an allowed Host", "devbox.test:" + port, "", "Nope", 404, "ResourceNotFound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := devservertest.AsAPage(t, s.url+"/2015-03-31/functions/"+tc.function+"/invocations", tc.host, map[string]string{"Origin": tc.origin}, `{}`)
			var doc struct{ Type, Message string }
			if status != tc.status || header.Get("X-Amzn-Errortype") != tc.errorType || json.Unmarshal(body, &doc) != nil || doc.Type != "User" || doc.Message == "" {
				t.Errorf("Host %s, Origin %q: %d %s %s, want %d %s in the Invoke API's error shape",
					tc.host, tc.origin, status, header.Get("X-Amzn-Errortype"), body, tc.status, tc.errorType)
			}
		})
	}
}

// A client that sends its body a byte every 300 ms is cut off once the read
// timeout passes (1 s here; devserver.ToolTimeouts in make start-lambda).
func TestSlowClientsAreCutOff(t *testing.T) {
	t.Parallel()
	s := startServer(t, t.TempDir(), nil, map[string]string{}, func(c *localserve.Config) {
		c.Timeouts = devserver.Timeouts{ReadHeader: time.Second, Read: time.Second, Idle: time.Second}
	})
	devservertest.CutsOffATrickle(t, strings.TrimPrefix(s.url, "http://"), "POST /2015-03-31/functions/CreatePlantFunction/invocations HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
}

// The PreTraffic hook, invoked through make start-lambda from a shell that
// holds AWS credentials, proves both functions and reports to the tool's
// CodeDeploy recorder, not to AWS: the real hook bootstrap's report is
// printed, and the invocation succeeds. createplant's store here accepts
// every write (the hook stores its reserved plant; what a store does is
// tested elsewhere).
func TestPreTrafficHookReportsLocally(t *testing.T) {
	t.Parallel()
	var dir string
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction", "PreTrafficFunction"} {
		dir = filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, fn)))
	}
	port := freePort(t) // the hook calls back into make start-lambda, so its URL goes into the env file
	url := "http://127.0.0.1:" + port
	shell := map[string]string{"PORT": port, "AWS_ACCESS_KEY_ID": "AKIASHELLKEYEXAMPLE", "AWS_SECRET_ACCESS_KEY": "shell-secret", "AWS_SESSION_TOKEN": "shell-token"}
	store := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		if r.Header.Get("X-Amz-Target") != "DynamoDB_20120810.PutItem" {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"com.amazon.coral.validate#ValidationException","message":"only PutItem here"}`)
			return
		}
		io.WriteString(w, `{}`)
	}))
	t.Cleanup(store.Close)
	s := startServer(t, dir, map[string]map[string]string{
		"PreTrafficFunction":  {"AWS_ENDPOINT_URL_LAMBDA": url},
		"CreatePlantFunction": {"AWS_ENDPOINT_URL_DYNAMODB": store.URL},
	}, shell, nil)
	client := awslambda.New(awslambda.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.url),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	out, err := client.Invoke(context.Background(), &awslambda.InvokeInput{
		FunctionName: aws.String("PreTrafficFunction"),
		Payload:      []byte(`{"DeploymentId":"d-LOCAL1234","LifecycleEventHookExecutionId":"exec-1"}`),
	})
	if err != nil || out.FunctionError != nil {
		t.Fatalf("the hook: %v %s\n%s", err, payload(out), s.stderr.String())
	}
	if want := `deployment "d-LOCAL1234" hook execution "exec-1": "Succeeded"`; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("no report %s printed:\n%s", want, s.stderr.String())
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	_, port, _ := net.SplitHostPort(proctest.FreeAddr(t))
	return port
}
