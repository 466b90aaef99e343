package main

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

// TestMain runs the tests, or, as the child of TestTheBinaryStopsCleanly,
// the program itself: os/exec's own tests re-execute their test binary the
// same way (helperCommand), and so the binary under test needs no second
// build of cmd/localapi under other flags.
func TestMain(m *testing.M) {
	if os.Getenv(runMain) == "1" {
		main()
		os.Exit(0)
	}
	dynamoemutest.Main(m)
}

// runMain in a test binary's environment makes it the local API.
const runMain = "PLANTSTORE_TEST_RUN_LOCALAPI"

// DynamoDB mode: with TABLE_NAME, the local API writes through the SDK to the
// endpoint in AWS_ENDPOINT_URL_DYNAMODB. (t.Setenv: the SDK reads the process
// environment, so this test does not run in parallel.)
func TestRunInDynamoDBMode(t *testing.T) {
	srv := dynamoemutest.Dynalite(t)
	table := dynamotest.NewTable(t, srv)
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
	s := start(t, map[string]string{"TABLE_NAME": table})
	if !strings.Contains(s.stdout.String(), "store: DynamoDB table "+table) {
		t.Errorf("startup line does not name the table:\n%s", s.stdout)
	}
	bearer := "Bearer " + s.token
	if status, _, body := s.post(t, "POST", "/plants", bearer, `{"id":42,"name":"Pothos","tag":"vine"}`); status != 200 {
		t.Fatalf("create: %d %s", status, body)
	}
	if status, e, _ := s.post(t, "POST", "/plants", bearer, `{"id":42,"name":"Other"}`); status != 400 || e.Error != 40009 {
		t.Errorf("conflict: %d %d", status, e.Error)
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	p, err := dynamo.New(srv.Client(), table, time.Now).Get(context.Background(), 42)
	if err != nil || p.Name != "Pothos" || p.Tag == nil || *p.Tag != "vine" {
		t.Errorf("in the table: %+v, %v", p, err)
	}
}

// A store that is down answers 503 per request; the server still starts.
func TestRunInDynamoDBModeWithStoreDown(t *testing.T) {
	t.Setenv("AWS_REGION", "us-east-1")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	t.Setenv("AWS_ENDPOINT_URL_DYNAMODB", "http://127.0.0.1:1")
	s := start(t, map[string]string{"TABLE_NAME": "plants"})
	defer s.stop()
	if status, e, body := s.post(t, "POST", "/plants", "Bearer "+s.token, `{"id":1,"name":"x"}`); status != 503 || e.Error != 50300 {
		t.Errorf("got %d %s, want 503 50300", status, body)
	}
}
