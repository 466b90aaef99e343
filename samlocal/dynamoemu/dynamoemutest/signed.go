package dynamoemutest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"

	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

// SignedRequest is a request for operation (e.g. "ListTables") to the
// DynamoDB endpoint at url carrying body, signed with creds at the time at
// by the SDK's SigV4 signer, as a client of the run sends it.
func SignedRequest(t testing.TB, url string, creds aws.Credentials, operation, body string, at time.Time) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810."+operation)
	sum := sha256.Sum256([]byte(body))
	if err := v4.NewSigner().SignHTTP(context.Background(), creds, req, hex.EncodeToString(sum[:]), "dynamodb", dynamoemu.Region, at); err != nil {
		t.Fatal(err)
	}
	return req
}

// AnswersOnlySigned checks that the DynamoDB endpoint at url answers only
// requests signed with creds, the run's own, and everything else with
// DynamoDB's 400 errors: none at all (MissingAuthenticationTokenException),
// another key (UnrecognizedClientException), the key with another secret, a
// body changed after signing or a signature past the 15 minutes of skew
// (InvalidSignatureException).
func AnswersOnlySigned(t *testing.T, url string, creds aws.Credentials) {
	t.Helper()
	anotherRun := aws.Credentials{AccessKeyID: "LOCALANOTHERRUN00000", SecretAccessKey: creds.SecretAccessKey}
	anotherSecret := aws.Credentials{AccessKeyID: creds.AccessKeyID, SecretAccessKey: "not-" + creds.SecretAccessKey}
	now := time.Now()
	for _, c := range []struct {
		name   string
		req    *http.Request
		status int
		want   string // the error's type
	}{
		{"unsigned", unsigned(t, url), http.StatusBadRequest, "MissingAuthenticationTokenException"},
		{"another run's key", SignedRequest(t, url, anotherRun, "ListTables", `{"Limit":1}`, now), http.StatusBadRequest, "UnrecognizedClientException"},
		{"the key with another secret", SignedRequest(t, url, anotherSecret, "ListTables", `{"Limit":1}`, now), http.StatusBadRequest, "InvalidSignatureException"},
		{"a body changed after signing", tampered(SignedRequest(t, url, creds, "ListTables", `{"Limit":1}`, now), `{"Limit":9}`), http.StatusBadRequest, "InvalidSignatureException"},
		{"signed 16 minutes ago", SignedRequest(t, url, creds, "ListTables", `{"Limit":1}`, now.Add(-16*time.Minute)), http.StatusBadRequest, "InvalidSignatureException"},
		{"the run's", SignedRequest(t, url, creds, "ListTables", `{"Limit":1}`, now), http.StatusOK, ""},
	} {
		resp, err := http.DefaultClient.Do(c.req)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || c.want != "" && !strings.Contains(string(body), "#"+c.want+`"`) {
			t.Errorf("%s: %d %s, want %d %s", c.name, resp.StatusCode, body, c.status, c.want)
		}
		if ct := resp.Header.Get("Content-Type"); c.want != "" && ct != "application/x-amz-json-1.0" {
			t.Errorf("%s: Content-Type %q", c.name, ct)
		}
	}
}

func unsigned(t testing.TB, url string) *http.Request {
	req, err := http.NewRequest(http.MethodPost, url+"/", strings.NewReader(`{"Limit":1}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	return req
}

// tampered gives req another body of the same length.
func tampered(req *http.Request, body string) *http.Request {
	req.Body = io.NopCloser(strings.NewReader(body))
	return req
}
