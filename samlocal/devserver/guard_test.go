package devserver

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// What a web page can send is refused; what programs on this machine send
// passes.
func TestLoopbackOnly(t *testing.T) {
	t.Parallel()
	allowed, err := ParseHosts("devbox.test, 192.0.2.7")
	if err != nil {
		t.Fatal(err)
	}
	var served, refused int
	h := LoopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { served++ }), allowed,
		func(w http.ResponseWriter, r *http.Request, reason string) {
			refused++
			w.WriteHeader(http.StatusForbidden)
			_, _ = w.Write([]byte(reason))
		})
	for _, tc := range []struct {
		name, host string
		header     map[string]string
		pass       bool
	}{
		{"127.0.0.1 with its port", "127.0.0.1:3001", nil, true},
		{"127.0.0.1 without a port", "127.0.0.1", nil, true},
		{"another loopback address", "127.1.2.3:3001", nil, true},
		{"localhost", "localhost:3000", nil, true},
		{"localhost in capitals, with a final dot", "LOCALHOST.:3000", nil, true},
		{"a name under .localhost", "app.localhost:3000", nil, true},
		{"[::1]", "[::1]:3000", nil, true},
		{"[::1] without a port", "[::1]", nil, true},
		{"an allowed name", "devbox.test:3000", nil, true},
		{"an allowed address", "192.0.2.7:3000", nil, true},
		{"a page on localhost", "localhost:3000", map[string]string{"Origin": "http://localhost:5173", "Sec-Fetch-Site": "same-site"}, true},
		{"a page on an allowed name", "devbox.test:3000", map[string]string{"Origin": "https://devbox.test"}, true},
		{"a same-origin fetch", "127.0.0.1:3000", map[string]string{"Origin": "http://127.0.0.1:3000", "Sec-Fetch-Site": "same-origin"}, true},

		{"DNS rebinding: the page's own name", "rebind.example:3001", nil, false},
		{"a name that merely starts with localhost", "localhost.example:3001", nil, false},
		{"a name that ends in localhost without a dot", "evillocalhost:3001", nil, false},
		{"the unspecified address", "0.0.0.0:3001", nil, false},
		{"a LAN address not allowed", "192.0.2.8:3001", nil, false},
		{"no Host", "", nil, false},
		{"a Host with two ports", "localhost:1:2", nil, false},
		{"a simple POST from another site", "127.0.0.1:3001", map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"}, false},
		{"Origin null (sandboxed frame, file: page)", "127.0.0.1:3001", map[string]string{"Origin": "null"}, false},
		{"an Origin of another scheme", "127.0.0.1:3001", map[string]string{"Origin": "chrome-extension://abc"}, false},
		{"an empty Origin", "127.0.0.1:3001", map[string]string{"Origin": ""}, false},
		{"a cross-site request without Origin", "127.0.0.1:3001", map[string]string{"Sec-Fetch-Site": "cross-site"}, false},
		{"rebinding and a foreign Origin", "rebind.example:3001", map[string]string{"Origin": "http://rebind.example:3001"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/2015-03-31/functions/CreatePlantFunction/invocations", strings.NewReader("{}"))
			req.Host = tc.host
			for k, v := range tc.header {
				req.Header.Set(k, v)
			}
			beforeServed, beforeRefused := served, refused
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			passed := served == beforeServed+1 && refused == beforeRefused
			if passed != tc.pass {
				t.Errorf("Host %q, headers %v: served %v (%d %q), want %v", tc.host, tc.header, passed, rec.Code, rec.Body, tc.pass)
			}
			if !passed && rec.Body.Len() == 0 {
				t.Error("refused without a reason")
			}
		})
	}
}

func TestParseHosts(t *testing.T) {
	t.Parallel()
	h, err := ParseHosts(" DevBox.Test. ,[fe80::1],,192.0.2.7")
	if err != nil || h.String() != "devbox.test,fe80::1,192.0.2.7" {
		t.Errorf("ParseHosts = %q, %v; want devbox.test,fe80::1,192.0.2.7", h.String(), err)
	}
	for _, bad := range []string{"devbox:3000", "http://devbox", "dev box", "*.example", "a..b", "devbox/x"} {
		if _, err := ParseHosts(bad); err == nil || !strings.Contains(err.Error(), "without a port") {
			t.Errorf("ParseHosts(%q): %v, want an error", bad, err)
		}
	}
	var flagged Hosts
	for _, v := range []string{"a.test", "b.test,c.test"} {
		if err := flagged.Set(v); err != nil {
			t.Fatal(err)
		}
	}
	if flagged.String() != "a.test,b.test,c.test" {
		t.Errorf("a repeated flag: %q", flagged.String())
	}
}
