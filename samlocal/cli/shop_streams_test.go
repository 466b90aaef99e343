package cli

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/proctest"
)

// The shop's audit trail, served end to end by start-api: ProductsTable
// has a stream, so its tables are on moto, as the start says; a product
// put through the API reaches AuditFunction through the stream, as
// Lambda's event source mapping would send it, and is read back through
// GET /audit (the seeded fern too: the mapping starts at TRIM_HORIZON); a
// product named "poison" fails as a batch item failure, is sent again
// twice (MaximumRetryAttempts: 2) and discarded, and the next product
// comes through. Each batch is one line on stdout. With --watch, a change
// of the consumer's code is rebuilt and the poller goes on with the new
// build where it was, sending nothing twice.
func TestShopsStreamFeedsItsAuditTrail(t *testing.T) {
	if _, err := exec.LookPath("moto_server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	// Not parallel: the end checks that every child process of this test
	// binary stops with the server, and a parallel test's server (another
	// moto_server) would be counted as one it left running.
	dir := proctest.CopyDir(t) // a copy, which the test edits
	if err := os.CopyFS(dir, os.DirFS(shop)); err != nil {
		t.Fatal(err)
	}
	url, stdout, stderr, stop := startShop(t, "start-api", "-p", "0", "--watch", "-t", filepath.Join(dir, "template.yaml"), "--seed", filepath.Join(dir, "seed.json"),
		"--data-dir", filepath.Join(t.TempDir(), "dynamodb"), "--build-dir", proctest.BuildDir(t))
	if !strings.Contains(stderr.String(), "DynamoDB on moto at http://127.0.0.1:") || !strings.Contains(stderr.String(), "it serves streams (ProductsTable), dynalite does not; its data lives in memory (tables AuditTable, ProductsTable)") {
		t.Errorf("no line at start that says the tables are on moto, and why:\n%s", stderr.String())
	}

	post := func(body string) {
		t.Helper()
		resp, err := http.Post(url+"/products", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 201 {
			t.Fatalf("POST /products %s: %d", body, resp.StatusCode)
		}
	}
	type entry struct{ ID, SKU, Event, Name, Source, Region, Version string }
	trail := func(sku string, n int) []entry {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second) // a failure bound, not a measure
		for {
			resp, err := http.Get(url + "/audit?sku=" + sku)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var got []entry
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("GET /audit?sku=%s: %d %s", sku, resp.StatusCode, body)
			}
			if len(got) >= n {
				return got
			}
			if time.Now().After(deadline) {
				t.Fatalf("the trail of %s: %s, want %d entries; stdout:\n%s", sku, body, n, stdout.Tail())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	if fern := trail("FERN-1", 1); fern[0].Event != "INSERT" || fern[0].Name != "Boston fern" {
		t.Errorf("the seeded fern's trail: %+v", fern)
	}
	post(`{"sku":"MON-1","name":"Monstera","category":"aroids"}`)
	post(`{"sku":"MON-1","name":"Monstera deliciosa","category":"aroids"}`)
	mon := trail("MON-1", 2)
	if mon[0].Event != "INSERT" || mon[1].Event != "MODIFY" || mon[1].Name != "Monstera deliciosa" {
		t.Errorf("the trail of MON-1: %+v", mon)
	}
	if e := mon[0]; !strings.HasPrefix(e.Source, "arn:aws:dynamodb:us-east-1:123456789012:table/ProductsTable/stream/") || e.Region != "us-east-1" || e.Version != "1.1" {
		t.Errorf("the record as AuditFunction got it: %+v", e)
	}

	post(`{"sku":"BAD-1","name":"poison","category":"aroids"}`)
	stdout.WaitFor(t, "| retries exhausted (MaximumRetryAttempts 2): 1 record discarded", 1)
	post(`{"sku":"ASP-1","name":"Asparagus fern","category":"ferns"}`)
	trail("ASP-1", 1)
	if got := trail("BAD-1", 0); len(got) != 0 {
		t.Errorf("the poison product was written: %+v", got)
	}
	out := stdout.String()
	for _, want := range []string{
		"stream ProductsTable → AuditFunction 1 record delivered",
		"stream ProductsTable → AuditFunction 1 record partial",
		"| retry 1 of 2 with 1 record from ",
		"| retry 2 of 2 with 1 record from ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q on stdout:\n%s", want, out)
		}
	}

	// A reload: the consumer's new build takes the next change, and no
	// change it was sent before comes again.
	code := filepath.Join(dir, "audit", "main.go")
	src, err := os.ReadFile(code)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "Name: name,", `Name: name + " (v2)",`, 1)
	if edited == string(src) {
		t.Fatal("audit/main.go has no \"Name: name,\" to edit")
	}
	// A batch's line names its records; a read the reload cut short
	// ("not read … again in 500ms") is no batch.
	batchLine := regexp.MustCompile(`stream ProductsTable → AuditFunction \d+ records? `)
	batches := len(batchLine.FindAllString(stdout.String(), -1))
	if err := os.WriteFile(code, []byte(edited), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout.WaitFor(t, "; ready", 1)
	post(`{"sku":"RUB-1","name":"Rubber plant","category":"ficus"}`)
	if rub := trail("RUB-1", 1); rub[0].Name != "Rubber plant (v2)" {
		t.Errorf("after the reload: %+v, want the new build's entry", rub)
	}
	if n := len(batchLine.FindAllString(stdout.String(), -1)) - batches; n != 1 {
		t.Errorf("%d batches after the reload, want RUB-1's alone:\n%s", n, stdout.Tail())
	}

	// Ctrl-C: the poller, the functions and moto_server stop with it.
	stopsItsProcesses(t, stop)
}

// startShop runs samlocal with args until stop or the end of the test
// (its context ends, as on Ctrl-C), and returns the URL it listens on and
// its output.
func startShop(t *testing.T, args ...string) (url string, stdout, stderr *proctest.Output, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stdout, stderr = &proctest.Output{}, &proctest.Output{}
	done := make(chan error, 1)
	go func() { done <- Run(ctx, args, noEnv, stdout, stderr) }()
	stop = sync.OnceFunc(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: %v", args[0], err)
			}
		case <-time.After(30 * time.Second): // a failure bound, not a measure
			t.Error("the server did not stop within 30s")
		}
	})
	t.Cleanup(stop)
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
				url, _, _ = strings.Cut(rest, " ")
				return url, stdout, stderr, stop
			}
		}
	}
}
