package gateway

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/gateway/gatewaytest"
)

// A request is a client's data: whatever its method, path, headers and
// body, the gateway answers with a status, never a panic, for every kind of
// API and route (REST and HTTP, literal, parameter, greedy and $default).
func FuzzServeHTTP(f *testing.F) {
	f.Add("GET", "/id/4?key=value&key=", "Content-Type", "image/gif", "\xff")
	f.Add("OPTIONS", "/a%2Fb/%E2%9C%93/", "Origin", "https://abc", "")
	f.Add("POST", "//x/../y?%zz", "Cookie", "a=1;;b", "{}")
	f.Add("PATCH", "/proxypath/%00", "Accept", "*/*;q=x", "x")
	rest, _ := newFuzzGateway(f, restTemplate)
	http1, _ := newFuzzGateway(f, httpTemplate)
	cors, _ := newFuzzGateway(f, swaggerHTTPTemplate)
	f.Fuzz(func(t *testing.T, method, target, header, value, body string) {
		req, err := http.NewRequest(method, "http://127.0.0.1:3000"+target, strings.NewReader(body))
		if err != nil || !strings.HasPrefix(target, "/") {
			return
		}
		req.RequestURI = target
		req.Header[header] = []string{value}
		for _, g := range []*Gateway{rest, http1, cors} {
			rec := httptest.NewRecorder()
			g.ServeHTTP(rec, req.Clone(req.Context()))
			if rec.Code < 100 || rec.Code > 599 {
				t.Fatalf("%s %s: status %d", method, target, rec.Code)
			}
			req.Body = http.NoBody
		}
	})
}

func newFuzzGateway(f *testing.F, template string) (*Gateway, *gatewaytest.Lambdas) {
	f.Helper()
	return serveTemplate(f, template, nil)
}
