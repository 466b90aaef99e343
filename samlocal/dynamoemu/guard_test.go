package dynamoemu_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

func TestMain(m *testing.M) { dynamoemutest.Main(m) }

// No web page reaches a local table: dynalite (which answers every origin
// with Access-Control-Allow-Origin: *) and moto (which echoes the Origin)
// listen on Unix sockets, and their loopback URLs refuse a foreign Host, a
// foreign Origin and Sec-Fetch-Site cross-site, and pass on no CORS header;
// the SDK still works.
func TestEmulatorsAnswerNoWebPage(t *testing.T) {
	t.Parallel()
	t.Run("dynalite", func(t *testing.T) { t.Parallel(); answersNoWebPage(t, dynamoemutest.Dynalite(t)) })
	t.Run("moto", func(t *testing.T) { t.Parallel(); answersNoWebPage(t, dynamoemutest.Moto(t)) })
}

func answersNoWebPage(t *testing.T, s *dynamoemu.Server) {
	if _, err := s.Client().ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("the SDK through the guard: %v", err)
	}
	port := s.URL[strings.LastIndex(s.URL, ":")+1:]
	scan := `{"TableName":"plants"}`
	for _, c := range []struct {
		name, host string
		headers    map[string]string
	}{
		{"another site's page", "127.0.0.1:" + port, map[string]string{"Origin": "https://evil.example", "X-Amz-Target": "DynamoDB_20120810.Scan"}},
		{"a rebound name", "rebind.example:" + port, map[string]string{"X-Amz-Target": "DynamoDB_20120810.Scan"}},
		{"a cross-site fetch", "127.0.0.1:" + port, map[string]string{"Sec-Fetch-Site": "cross-site", "X-Amz-Target": "DynamoDB_20120810.Scan"}},
		{"a null origin", "127.0.0.1:" + port, map[string]string{"Origin": "null", "X-Amz-Target": "DynamoDB_20120810.Scan"}},
	} {
		status, h, body := devservertest.AsAPage(t, s.URL, c.host, c.headers, scan)
		if status != http.StatusForbidden || !strings.Contains(string(body), "AccessDeniedException") {
			t.Errorf("%s: %d %s, want 403 AccessDeniedException", c.name, status, body)
		}
		if v := h.Get("Access-Control-Allow-Origin"); v != "" {
			t.Errorf("%s: Access-Control-Allow-Origin %q", c.name, v)
		}
	}
	// A request from a loopback origin that carries the run's signature
	// passes both checks; the answer still names no origin a browser would
	// let read it.
	req := dynamoemutest.SignedRequest(t, s.URL, s.Credentials, "ListTables", `{}`, time.Now())
	req.Header.Set("Origin", "http://127.0.0.1:"+port)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("a signed request from a loopback origin: %d, want 200", resp.StatusCode)
	}
	h := resp.Header
	for k := range h {
		if strings.HasPrefix(k, "Access-Control-") {
			t.Errorf("%s's %s reaches the client: %q", s.Name, k, h.Get(k))
		}
	}
}
