package trace

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/proctest"
)

// Another user of the machine cannot use the recording proxy to reach the
// table behind it: it answers only requests signed with the credentials its
// function holds, as DynamoDB does.
func TestTheDynamoDBProxyAnswersOnlyTheFunctionsSignature(t *testing.T) {
	t.Parallel()
	table := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		io.WriteString(w, `{"TableNames":[]}`)
	}))
	defer table.Close()
	creds := aws.Credentials{AccessKeyID: "LOCALTHEFUNCTIONSKEY", SecretAccessKey: "its-secret"}
	proxy, stop, err := NewRecorder(&proctest.Output{}).DynamoDB(table.URL, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	dynamotest.AnswersOnlySigned(t, proxy, creds)
}
