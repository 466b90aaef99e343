package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
)

// A web page cannot use the local API: not by DNS rebinding (its own name
// in Host, where it could read the answers) and not by a simple POST with
// its Origin. Both get 403 in the Error shape (40000) before the token is
// looked at; programs on this machine, and a Host in ALLOW_HOSTS, are
// served.
func TestWebPagesAreRefused(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{"STORE_PATH": filepath.Join(t.TempDir(), "plants.db"), "ALLOW_HOSTS": "devbox.test"})
	defer s.stop()
	port := s.url[strings.LastIndex(s.url, ":")+1:]
	for i, tc := range []struct {
		name, host, origin, fetchSite string
		status                        int
		code                          int32
	}{
		{"DNS rebinding", "rebind.example:" + port, "", "", 403, 40000},
		{"a simple POST from a page elsewhere", "127.0.0.1:" + port, "https://evil.example", "", 403, 40000},
		{"a cross-site request without Origin", "127.0.0.1:" + port, "", "cross-site", 403, 40000},
		{"a program on loopback", "127.0.0.1:" + port, "", "", 200, 0},
		{"a page on localhost", "localhost:" + port, "http://localhost:5173", "same-site", 200, 0},
		{"an allowed Host", "devbox.test:" + port, "", "", 200, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, header, body := devservertest.AsAPage(t, s.url+"/plants", tc.host, map[string]string{
				"Content-Type": "application/json", "Authorization": "Bearer " + s.token, "Origin": tc.origin, "Sec-Fetch-Site": tc.fetchSite,
			}, fmt.Sprintf(`{"id":%d,"name":"x"}`, i+1))
			e := apitest.Check(t, "POST", "/plants", status, header, body)
			if status != tc.status || e.Error != tc.code {
				t.Errorf("Host %s, Origin %q: %d %s, want %d %d", tc.host, tc.origin, status, body, tc.status, tc.code)
			}
		})
	}
}

func TestAllowHostsIsChecked(t *testing.T) {
	t.Parallel()
	if _, err := loadConfig(env(map[string]string{"ALLOW_HOSTS": "devbox.test:3000"})); err == nil || !strings.Contains(err.Error(), "ALLOW_HOSTS") {
		t.Errorf("ALLOW_HOSTS with a port: %v, want an error naming ALLOW_HOSTS", err)
	}
	c, err := loadConfig(env(map[string]string{"HOST": "192.0.2.7", "ALLOW_HOSTS": "devbox.test"}))
	if err != nil || c.allowHosts.String() != "devbox.test,192.0.2.7" {
		t.Errorf("HOST=192.0.2.7: allowed %q, %v; want the address listened on beside ALLOW_HOSTS", c.allowHosts.String(), err)
	}
}
