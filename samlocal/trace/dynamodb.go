package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

// DynamoDB serves a proxy to the DynamoDB endpoint target that records each
// call on the trace of the invocation that made it (by its X-Amzn-Trace-Id):
// the operation, the condition's outcome (held, or failed with
// ConditionalCheckFailedException) or the error type, and its duration.
// Point a function's AWS_ENDPOINT_URL_DYNAMODB at the URL it returns; close
// stops it. It is served as the emulators are (dynamoemu.Front): it
// refuses web pages, answers only requests signed with creds, the
// credentials the function holds, and passes on no CORS header of the
// server behind it. It passes on the Host the function signed.
func (r *Recorder) DynamoDB(target string, creds aws.Credentials) (proxyURL string, closeFn func(), err error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = dynamoemu.StripCORS
	return dynamoemu.Front(creds, http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		// Signed has read the body whole, up to DynamoDB's 16 MB: the
		// table gets all of it, the recording reads it.
		body, _ := io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		op := req.Header.Get("X-Amz-Target")
		op = op[strings.LastIndexByte(op, '.')+1:]
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		start := time.Now()
		proxy.ServeHTTP(rec, req)
		r.AddStep(req.Header.Get("X-Amzn-Trace-Id"), "DynamoDB "+op, start, time.Since(start), outcome(body, rec))
	}))
}

// outcome says how a call ended: its condition held or failed, or its
// error type, or "ok".
func outcome(request []byte, rec *recorder) string {
	var in struct{ ConditionExpression string }
	_ = json.Unmarshal(request, &in)
	if rec.status == http.StatusOK {
		if in.ConditionExpression != "" {
			return "condition held"
		}
		return "ok"
	}
	var e struct {
		Type string `json:"__type"`
	}
	_ = json.Unmarshal(rec.body.Bytes(), &e)
	typ := e.Type[strings.LastIndexByte(e.Type, '#')+1:]
	if typ == "ConditionalCheckFailedException" {
		return "condition failed (" + typ + ")"
	}
	if typ == "" {
		typ = http.StatusText(rec.status)
	}
	return "error " + typ
}
