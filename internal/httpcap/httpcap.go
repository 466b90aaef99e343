// Package httpcap bounds what an HTTP client reads from the servers it
// calls: the authorizer's JWKS fetches and the PreTraffic hook's token
// grant both take answers from a server that could send without end.
package httpcap

import "net/http"

// Transport is next with every answer's body failing to read past limit
// bytes (http.MaxBytesReader, which without a ResponseWriter only limits).
func Transport(next http.RoundTripper, limit int64) http.RoundTripper {
	return transport{next: next, limit: limit}
}

type transport struct {
	next  http.RoundTripper
	limit int64
}

func (t transport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = http.MaxBytesReader(nil, resp.Body, t.limit)
	return resp, nil
}
