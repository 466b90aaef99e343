package dynamoemu

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/plantstore/plantstore/samlocal/devserver"
)

// Guard is what a browser meets at a local DynamoDB endpoint:
// devserver.LoopbackOnly, as the local API has it (a foreign Host, a foreign
// Origin and Sec-Fetch-Site cross-site get 403, in DynamoDB's error shape).
// A proxy before the server also drops its CORS headers (StripCORS).
// dynalite answers every origin with Access-Control-Allow-Origin: * (its
// index.js), so without both a page of any site could read and write the
// local table; SDKs and the CLI send a loopback Host and no Origin, and pass.
func Guard(next http.Handler) http.Handler {
	return devserver.LoopbackOnly(next, nil, func(w http.ResponseWriter, _ *http.Request, reason string) {
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": "com.amazonaws.dynamodb.v20120810#AccessDeniedException", "message": "refused: " + reason})
	})
}

// StripCORS drops the Access-Control-* headers of an answer, as a reverse
// proxy's ModifyResponse: no page of another origin may read it.
func StripCORS(resp *http.Response) error {
	for k := range resp.Header {
		if strings.HasPrefix(k, "Access-Control-") {
			resp.Header.Del(k)
		}
	}
	return nil
}

// Front serves next behind Guard, then Signed with creds, on a free
// loopback port, and returns that port's URL and a stop. next is a reverse
// proxy to a DynamoDB-compatible server with StripCORS as its
// ModifyResponse: the emulators' own front (front) or the trace's recording
// proxy (tools/trace).
func Front(creds aws.Credentials, next http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: Guard(Signed(creds, time.Now, next)), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = srv.Close() }, nil
}

// front is Front before a server that listens on the Unix socket sock;
// with serial, it passes on one request at a time, each until its answer
// is copied whole.
func front(sock string, creds aws.Credentials, serial bool) (string, func(), error) {
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: "emulator"})
	proxy.ModifyResponse = StripCORS
	proxy.Transport = &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}
	if !serial {
		return Front(creds, proxy)
	}
	var mu sync.Mutex
	return Front(creds, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
}
