package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	childproc.StopAll()
	os.Exit(code)
}

// shop is a Go SAM project nobody here wrote the tools for: its own module,
// a BuildMethod go1.x function and a makefile one, a table keyed by a
// string with a global secondary index that the functions' environment
// names by !Ref, the implicit REST API, and a Python function samlocal
// does not serve.
const shop = "../testdata/shop"

// The shop is served by samlocal invoke, start-lambda and start-api from
// its template alone: each function built as sam build builds it, the
// table made with its own key schema and index, seeded from the shop's
// seed file, and what is not served said at start.
func TestServesAProjectNobodyHereWrote(t *testing.T) {
	srv, err := dynamoemu.StartDynalite("")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	srv.Stop()
	// The shop is its own module, outside the repository's go.work: its
	// builds run as in its own checkout.
	t.Setenv("GOWORK", "off")
	common := []string{"-t", filepath.Join(shop, "template.yaml"), "--seed", filepath.Join(shop, "seed.json"),
		"--data-dir", filepath.Join(t.TempDir(), "dynamodb"), "--build-dir", filepath.Join(t.TempDir(), "build")}
	ctx := context.Background()

	put := apiEvent(t, "POST", "/products", nil, `{"sku":"MON-1","name":"Monstera","category":"aroids"}`)
	var stdout, stderr bytes.Buffer
	if err := Run(ctx, append([]string{"invoke", "ProductsFunction", "-e", put, "--parameter-overrides", "Currency=USD"}, common...), noEnv, &stdout, &stderr); err != nil {
		t.Fatalf("invoke ProductsFunction: %v\n%s", err, stderr.String())
	}
	if got := proxyAnswer(t, stdout.Bytes()); got.StatusCode != 201 || !strings.Contains(got.Body, `"currency":"USD"`) {
		t.Errorf("invoke ProductsFunction: %+v, want 201 with the overridden currency", got)
	}
	for _, note := range []string{"CategoryFunction: Layers are not served", `ReportFunction: Runtime "python3.12" is not served`} {
		if !strings.Contains(stderr.String(), "samlocal: "+note) {
			t.Errorf("no line %q at start:\n%s", note, stderr.String())
		}
	}

	stdout.Reset()
	list := apiEvent(t, "GET", "/categories", map[string]string{"category": "ferns"}, "")
	if err := Run(ctx, append([]string{"invoke", "CategoryFunction", "-e", list}, common...), noEnv, &stdout, &stderr); err != nil {
		t.Fatalf("invoke CategoryFunction: %v\n%s", err, stderr.String())
	}
	if got := proxyAnswer(t, stdout.Bytes()); got.Body != `{"skus":["FERN-1"]}` {
		t.Errorf("the seeded fern by its category index: %+v", got)
	}

	t.Run("start-lambda", func(t *testing.T) {
		url := serveShop(t, append([]string{"start-lambda", "-p", "0"}, common...))
		payload, _ := os.ReadFile(list)
		resp, err := http.Post(url+"/2015-03-31/functions/CategoryFunction/invocations", "application/json", bytes.NewReader(payload))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if got := proxyAnswer(t, body); resp.StatusCode != 200 || got.Body != `{"skus":["FERN-1"]}` {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})

	t.Run("start-api", func(t *testing.T) {
		url := serveShop(t, append([]string{"start-api", "-p", "0"}, common...))
		resp, err := http.Post(url+"/products", "application/json", strings.NewReader(`{"sku":"ASP-1","name":"Asparagus fern","category":"ferns"}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Errorf("POST /products: %d", resp.StatusCode)
		}
		for path, want := range map[string]string{
			"/categories?category=ferns": `{"skus":["ASP-1","FERN-1"]}`,
			"/products?sku=ASP-1":        `{"sku":"ASP-1","name":"Asparagus fern","category":"ferns","currency":"EUR"}`,
		} {
			resp, err := http.Get(url + path)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || string(body) != want {
				t.Errorf("GET %s: %d %s, want 200 %s", path, resp.StatusCode, body, want)
			}
		}
	})
}

func noEnv(string) (string, bool) { return "", false }

// apiEvent writes a REST API proxy event and returns its path.
func apiEvent(t *testing.T, method, path string, query map[string]string, body string) string {
	t.Helper()
	raw, _ := json.Marshal(events.APIGatewayProxyRequest{HTTPMethod: method, Path: path, Resource: path, QueryStringParameters: query, Body: body})
	file := filepath.Join(t.TempDir(), "event.json")
	if err := os.WriteFile(file, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

func proxyAnswer(t *testing.T, raw []byte) events.APIGatewayProxyResponse {
	t.Helper()
	var r events.APIGatewayProxyResponse
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	return r
}

// serveShop runs a samlocal server until the test ends and returns its URL.
func serveShop(t *testing.T, args []string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr proctest.Output
	done := make(chan error, 1)
	go func() { done <- Run(ctx, args, noEnv, &stdout, &stderr) }()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(30 * time.Second): // a failure bound, not a measure
			t.Error("the server did not stop within 30s")
		}
	})
	bound := time.After(3 * time.Minute) // the builds; a failure bound, not a measure
	for {
		select {
		case err := <-done:
			t.Fatalf("%s ended: %v\n%s%s", args[0], err, stdout.String(), stderr.String())
		case <-bound:
			t.Fatalf("%s did not listen within 3 minutes:\n%s%s", args[0], stdout.String(), stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
		for _, line := range strings.Split(stdout.String(), "\n") {
			if _, rest, ok := strings.Cut(line, "listening on "); ok {
				url, _, _ := strings.Cut(rest, " ")
				return url
			}
		}
	}
}
