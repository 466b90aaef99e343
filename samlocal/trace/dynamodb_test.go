package trace

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

// Another user of the machine cannot use the recording proxy to reach the
// table behind it: it answers only requests signed with the credentials its
// function holds, as DynamoDB does.
func TestTheDynamoDBProxyAnswersOnlyTheFunctionsSignature(t *testing.T) {
	t.Parallel()
	proxy, creds := recording(t, func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"TableNames":[]}`)
	})
	dynamoemutest.AnswersOnlySigned(t, proxy, creds)
}

// recording serves the recorder's proxy, for a function that holds creds,
// before a table that table answers; the test's end stops both.
func recording(t *testing.T, table http.HandlerFunc) (proxy string, creds aws.Credentials) {
	srv := httptest.NewServer(table)
	t.Cleanup(srv.Close)
	creds = aws.Credentials{AccessKeyID: "LOCALTHEFUNCTIONSKEY", SecretAccessKey: "its-secret"}
	proxy, stop, err := NewRecorder(&proctest.Output{}).DynamoDB(srv.URL, creds)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return proxy, creds
}

// The proxy passes on the whole request: DynamoDB takes requests of up to
// 16 MB (a BatchWriteItem of 25 items of 400 KB is 10 MB), and one cut
// short would reach the table as another request, or as broken JSON.
func TestTheDynamoDBProxyPassesOnTheWholeRequest(t *testing.T) {
	t.Parallel()
	got := make(chan int, 1)
	proxy, creds := recording(t, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- len(b)
		io.WriteString(w, `{}`)
	})
	body := `{"RequestItems":{"plants":[{"PutRequest":{"Item":{"id":{"S":"` + strings.Repeat("x", 3<<20) + `"}}}}]}}`
	resp, err := http.DefaultClient.Do(dynamoemutest.SignedRequest(t, proxy, creds, "BatchWriteItem", body, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("a signed request of %d bytes: %s", len(body), resp.Status)
	}
	if n := <-got; n != len(body) {
		t.Errorf("the table received %d bytes of a %d-byte request", n, len(body))
	}
}
