package devserver

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// LoopbackOnly serves next only to requests that no web page elsewhere can
// have sent, and hands the others to refuse with the reason, to answer 403
// in the server's own error shape.
//
// A server on 127.0.0.1 is reachable from every page the developer's browser
// opens. A page can send it a "simple" request (a POST with Content-Type
// text/plain needs no CORS preflight, so it reaches the handler; CORS only
// hides the answer), and by DNS rebinding (its own name re-pointed at
// 127.0.0.1) it can read the answers too, since the browser then takes the
// server for the page's own origin. So a request is answered only when:
//
//   - its Host names loopback: localhost or a name under .localhost (RFC
//     6761 keeps them on loopback and browsers resolve them there
//     themselves), or a loopback IP address (127.0.0.0/8, [::1]), with or
//     without a port; or a name of allowed (-allow-host, ALLOW_HOSTS). A
//     rebinding page's Host is its own name, never one of these;
//   - it carries no Origin, or an http or https Origin whose host is one of
//     those: browsers send Origin on every cross-origin POST and fetch, so a
//     page elsewhere is refused even when it names 127.0.0.1 (Origin "null",
//     from sandboxed frames and file: pages, is refused too);
//   - its Sec-Fetch-Site is not "cross-site", which browsers send on the
//     requests that carry no Origin (a cross-site GET, an image).
//
// Programs (curl, the AWS CLI and SDKs, the tests) send a loopback Host and
// no Origin, so they pass. SAM CLI's local servers check none of this: sam
// local start-lambda's validate_request looks at the body (JSON), the query
// string and X-Amz-Log-Type only, and its Flask app answers any Host
// (samcli/local/lambda_service/local_lambda_http_service.py and
// samcli/local/services/base_local_service.py, aws-sam-cli 03d8add).
func LoopbackOnly(next http.Handler, allowed Hosts, refuse func(w http.ResponseWriter, r *http.Request, reason string)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reason := allowed.refusal(r); reason != "" {
			refuse(w, r, reason)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refusal is why r must be refused, or "".
func (h Hosts) refusal(r *http.Request) string {
	if !h.local(hostname(r.Host)) {
		return "the Host is neither a loopback name nor an allowed one"
	}
	if origin, sent := r.Header["Origin"]; sent {
		u, err := url.Parse(strings.Join(origin, ","))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !h.local(hostname(u.Host)) {
			return "the request comes from a web page on another host (Origin)"
		}
	}
	if strings.EqualFold(r.Header.Get("Sec-Fetch-Site"), "cross-site") {
		return "the request comes from a web page on another site (Sec-Fetch-Site)"
	}
	return ""
}

// local says whether name (from hostname) is loopback or allowed.
func (h Hosts) local(name string) bool {
	if name == "localhost" || strings.HasSuffix(name, ".localhost") || slices.Contains(h, name) {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// hostname is the host of a Host header or URL authority: without its port
// or IPv6 brackets, lower-case, without a final dot.
func hostname(hostport string) string {
	name := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		name = host
	} else if strings.HasPrefix(name, "[") && strings.HasSuffix(name, "]") {
		name = name[1 : len(name)-1]
	}
	return strings.TrimSuffix(strings.ToLower(name), ".")
}

// Hosts are host names a server answers beside loopback ones: the
// -allow-host flag of make start-api and make start-lambda, ALLOW_HOSTS of
// make run. As a flag it takes a comma-separated list and may be repeated.
type Hosts []string

// ParseHosts reads a comma-separated list of host names or IP addresses,
// without ports.
func ParseHosts(list string) (Hosts, error) {
	var h Hosts
	return h, h.Set(list)
}

// String is the list as Set takes it.
func (h *Hosts) String() string { return strings.Join(*h, ",") }

// Set adds the names of a comma-separated list.
func (h *Hosts) Set(list string) error {
	for v := range strings.SplitSeq(list, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		name := strings.TrimSuffix(strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")), ".")
		if net.ParseIP(name) == nil && !validName(name) {
			return fmt.Errorf("%q: want a host name or an IP address, without a port", v)
		}
		*h = append(*h, name)
	}
	return nil
}

// validName says whether name is a DNS name (letters, digits, '-', '_',
// dots between non-empty labels).
func validName(name string) bool {
	if name == "" || len(name) > 253 {
		return false
	}
	for label := range strings.SplitSeq(name, ".") {
		if label == "" {
			return false
		}
		for _, c := range label {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}
