package dynamoemu

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// NewCredentials returns a key pair of one run's own. A front answers only
// the requests it signs (Signed); the run hands it to its own clients and
// bootstraps (Server.Client, Server.Env, Local.Provide) and to no one else.
func NewCredentials() aws.Credentials {
	return aws.Credentials{AccessKeyID: "LOCAL" + rand.Text()[:15], SecretAccessKey: rand.Text() + rand.Text(), Source: "dynamoemu"}
}

const (
	// maxSkew is how far DynamoDB lets a signature's X-Amz-Date stray from
	// its clock: "Signature expired: ... (... - 15 min.)", the answer that
	// dynalite's index.js records from DynamoDB; RequestExpired in the
	// common errors of the AWS API references says the same 15 minutes.
	maxSkew = 15 * time.Minute
	// maxRequestBytes is DynamoDB's limit on a request, as dynalite has it
	// (MAX_REQUEST_BYTES, answered 413).
	maxRequestBytes = 16 << 20
	amzDate         = "20060102T150405Z"
)

// Signed answers only requests signed with creds by SigV4, as DynamoDB
// checks each caller's signature: it recomputes the signature with the
// SDK's v4 signer over the request's signed headers and its body's SHA-256,
// and compares. Anything else gets DynamoDB's own 400, in its order
// (recorded in dynalite's index.js; the errors are listed at
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html):
// no SigV4 Authorization header, MissingAuthenticationTokenException; one
// that lacks a part or a date, IncompleteSignatureException; a date more
// than 15 minutes from now, InvalidSignatureException; another key,
// UnrecognizedClientException; another secret, a changed body or header,
// InvalidSignatureException; another session token,
// UnrecognizedClientException. A header needs X-Amz-Date (every AWS SDK
// sends it); presigned query strings are not taken. The errors' __type is
// com.amazon.coral.service#..., as DynamoDB names its authentication
// errors (the SDK reads the part after '#').
func Signed(creds aws.Credentials, now func() time.Time, next http.Handler) http.Handler {
	signer := v4.NewSigner()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBytes+1))
		if err != nil {
			return // the client went away
		}
		if len(body) > maxRequestBytes {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		if typ, message := verify(signer, creds, now(), r, body); typ != "" {
			w.Header().Set("Content-Type", "application/x-amz-json-1.0")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazon.coral.service#" + typ, "message": message})
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		next.ServeHTTP(w, r)
	})
}

// verify returns the type and message of DynamoDB's error for r, or "".
func verify(signer *v4.Signer, creds aws.Credentials, now time.Time, r *http.Request, body []byte) (typ, message string) {
	auth := strings.TrimSpace(r.Header.Get("Authorization"))
	if !strings.HasPrefix(auth, "AWS4-") {
		return "MissingAuthenticationTokenException", "Request is missing Authentication Token"
	}
	algorithm, rest, _ := strings.Cut(auth, " ")
	params := map[string]string{}
	for _, kv := range strings.FieldsFunc(rest, func(c rune) bool { return c == ',' || c == ' ' }) {
		k, v, _ := strings.Cut(kv, "=")
		params[k] = v
	}
	var missing string
	for _, p := range []string{"Credential", "Signature", "SignedHeaders"} {
		if params[p] == "" {
			missing += "Authorization header requires '" + p + "' parameter. "
		}
	}
	date := r.Header.Get("X-Amz-Date")
	if date == "" {
		missing += "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
	}
	if missing != "" {
		return "IncompleteSignatureException", missing + "Authorization=" + auth
	}
	at, err := time.Parse(amzDate, date)
	if err != nil {
		return "IncompleteSignatureException", "Date must be in ISO-8601 'basic format'. Got '" + date + "'. See http://en.wikipedia.org/wiki/ISO_8601"
	}
	now = now.UTC()
	if at.Before(now.Add(-maxSkew)) {
		return "InvalidSignatureException", fmt.Sprintf("Signature expired: %s is now earlier than %s (%s - 15 min.)", date, now.Add(-maxSkew).Format(amzDate), now.Format(amzDate))
	}
	if at.After(now.Add(maxSkew)) {
		return "InvalidSignatureException", fmt.Sprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)", date, now.Add(maxSkew).Format(amzDate), now.Format(amzDate))
	}
	if algorithm != "AWS4-HMAC-SHA256" {
		return "IncompleteSignatureException", "Unsupported AWS 'algorithm': '" + algorithm + "' (only AWS4-HMAC-SHA256 for now). "
	}
	scope := strings.Split(strings.TrimRight(params["Credential"], "/"), "/")
	if len(scope) != 5 {
		return "IncompleteSignatureException", "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '" + params["Credential"] + "'"
	}
	if scope[0] != creds.AccessKeyID {
		return "UnrecognizedClientException", "The security token included in the request is invalid."
	}
	// The request again with only what was signed, signed again for
	// DynamoDB in the scope's region at its date.
	again := &http.Request{Method: r.Method, Host: r.Host, Header: http.Header{},
		URL: &url.URL{Scheme: "http", Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}}
	for _, name := range strings.Split(params["SignedHeaders"], ";") {
		switch name {
		case "host": // the signer takes Host
		case "content-length":
			again.ContentLength = int64(len(body))
		default:
			again.Header[http.CanonicalHeaderKey(name)] = r.Header.Values(name)
		}
	}
	sum := sha256.Sum256(body)
	if err := signer.SignHTTP(r.Context(), creds, again, hex.EncodeToString(sum[:]), "dynamodb", scope[2], at); err != nil {
		return "InvalidSignatureException", err.Error()
	}
	_, want, _ := strings.Cut(again.Header.Get("Authorization"), "Signature=")
	if subtle.ConstantTimeCompare([]byte(want), []byte(params["Signature"])) != 1 {
		return "InvalidSignatureException", "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
	}
	if subtle.ConstantTimeCompare([]byte(r.Header.Get("X-Amz-Security-Token")), []byte(creds.SessionToken)) != 1 {
		return "UnrecognizedClientException", "The security token included in the request is invalid"
	}
	return "", ""
}
