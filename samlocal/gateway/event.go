package gateway

import (
	"encoding/base64"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-lambda-go/events"
)

// The events a route's function gets: a REST API's proxy event (payload
// 1.0), an HTTP API's payload 2.0, or its 1.0 (the REST shape with
// "version": "1.0"), as aws-lambda-go's types define them and API Gateway
// fills them ("Set up Lambda proxy integrations in API Gateway", "Create
// AWS Lambda proxy integrations for HTTP APIs"); SAM CLI's
// samcli/local/apigw/event_constructor.py and samcli/local/events/
// api_event.py build the same shapes. Where SAM CLI departs from API
// Gateway, samlocal follows API Gateway and says so beside the field.

// v1Event is payload format 1.0; Version is set for an HTTP API only (AE
// ApiGatewayLambdaEvent.to_dict).
type v1Event struct {
	events.APIGatewayProxyRequest
	Version string `json:"version,omitempty"`
}

// bodyOf is the event's body: base64 when binary says so, else the text;
// ok is false for a text body that is not UTF-8, which SAM CLI answers 502
// (LAS _request_handler) as JSON cannot carry it.
func bodyOf(body []byte, binary bool) (string, bool, bool) {
	if binary {
		return base64.StdEncoding.EncodeToString(body), true, true
	}
	if !utf8.Valid(body) {
		return "", false, false
	}
	return string(body), false, true
}

// mediaType is a Content-Type's type/subtype, lower-case, without
// parameters.
func mediaType(ct string) string {
	if t, _, err := mime.ParseMediaType(ct); err == nil {
		return t
	}
	t, _, _ := strings.Cut(ct, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

// isBinary says whether a REST API takes a body of content type ct as
// binary: its media type is one of the API's binary media types, which may
// be wildcards (image/*, */*) as API Gateway allows ("Working with binary
// media types for REST APIs"); SAM CLI matches exact types and */* only
// (EC _should_base64_encode).
func isBinary(types []string, ct string) bool {
	t := mediaType(ct)
	if t == "" {
		return false
	}
	for _, b := range types {
		b = strings.ToLower(b)
		if b == t || b == "*/*" {
			return true
		}
		if prefix, ok := strings.CutSuffix(b, "/*"); ok && strings.HasPrefix(t, prefix+"/") {
			return true
		}
	}
	return false
}

// isText says whether an HTTP API sends a body of content type ct as text:
// API Gateway base64-encodes an HTTP API's other bodies for a Lambda
// integration (isBase64Encoded; the guide names no list, and these are the
// types it is seen to pass as text). An empty body is text.
func isText(ct string, body []byte) bool {
	if len(body) == 0 {
		return true
	}
	t := mediaType(ct)
	switch {
	case strings.HasPrefix(t, "text/"), t == "application/json", t == "application/xml", t == "application/javascript",
		strings.HasSuffix(t, "+json"), strings.HasSuffix(t, "+xml"):
		return true
	}
	return false
}

// forwarded are the X-Forwarded-* headers API Gateway sets, as SAM CLI
// sets them (EC _event_headers): the client's address, the listening port
// and the scheme.
func forwarded(r *http.Request) map[string]string {
	proto := "http"
	if r.TLS != nil {
		proto = "https"
	}
	port := ""
	if addr, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		_, port, _ = net.SplitHostPort(addr.String())
	} else if _, p, err := net.SplitHostPort(r.Host); err == nil {
		port = p
	}
	if port == "" {
		port = "80"
	}
	return map[string]string{"X-Forwarded-For": sourceIP(r), "X-Forwarded-Port": port, "X-Forwarded-Proto": proto}
}

// v1 builds payload format 1.0. Each header keeps its last value in
// headers and all in multiValueHeaders, each query parameter likewise, as
// API Gateway sends them (SAM CLI's Werkzeug server joins repeated headers
// into one value with ","). requestContext.path is the stage and the
// request's path, as API Gateway's (SAM CLI gives the route's template).
func (req *request) v1(http bool) (v1Event, bool) {
	r, a := req.r, req.api
	binary := isBinary(a.BinaryMediaTypes, r.Header.Get("Content-Type"))
	if http {
		binary = !isText(r.Header.Get("Content-Type"), req.body)
	}
	body, b64, ok := bodyOf(req.body, binary)
	ev := v1Event{APIGatewayProxyRequest: events.APIGatewayProxyRequest{
		Resource:          req.route.Path,
		Path:              r.URL.Path,
		HTTPMethod:        r.Method,
		Headers:           map[string]string{},
		MultiValueHeaders: map[string][]string{},
		PathParameters:    req.params,
		StageVariables:    a.Variables,
		Body:              body,
		IsBase64Encoded:   b64,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:        AccountID,
			ResourceID:       "local",
			Stage:            a.StageName(),
			RequestID:        req.id,
			Identity:         events.APIGatewayRequestIdentity{SourceIP: sourceIP(r), UserAgent: r.UserAgent()},
			ResourcePath:     req.route.Path,
			Authorizer:       req.auth.v1,
			HTTPMethod:       r.Method,
			RequestTime:      req.now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			RequestTimeEpoch: req.now.UnixMilli(),
			APIID:            APIID,
			Path:             "/" + a.StageName() + r.URL.Path,
			Protocol:         r.Proto,
			DomainName:       r.Host,
			DomainPrefix:     domainPrefix(r.Host),
		},
	}}
	if !http {
		// REST only: SAM CLI leaves it out for an HTTP API's 1.0 (LAS
		// _generate_lambda_event).
		ev.RequestContext.OperationName = req.route.OperationName
	} else {
		ev.Version = "1.0"
	}
	ev.MultiValueHeaders["Host"] = []string{r.Host}
	for k, vs := range r.Header {
		ev.MultiValueHeaders[k] = vs
	}
	for k, v := range forwarded(r) {
		ev.MultiValueHeaders[k] = []string{v}
	}
	for k, vs := range ev.MultiValueHeaders {
		ev.Headers[k] = vs[len(vs)-1]
	}
	if q, _ := url.ParseQuery(r.URL.RawQuery); len(q) > 0 {
		ev.QueryStringParameters, ev.MultiValueQueryStringParameters = map[string]string{}, map[string][]string{}
		for k, vs := range q {
			ev.MultiValueQueryStringParameters[k] = vs
			ev.QueryStringParameters[k] = vs[len(vs)-1]
		}
	}
	return ev, ok
}

// v2 builds payload format 2.0: header names lower-case and repeated ones
// joined with ",", query parameters joined with ",", the Cookie headers as
// cookies, rawPath as the client sent it (percent-encoded) and
// requestContext.http.path decoded ("Payload format differences"). SAM
// CLI differs, and samlocal follows API Gateway: a per-request id and time
// (SAM CLI's are fixed at start, #9279), timeEpoch in milliseconds (SAM
// CLI's in seconds), routeKey "ANY /path" for an ANY route (SAM CLI puts
// the request's method), and no pathParameters on $default (SAM CLI sends
// {"any_path": ...}).
func (req *request) v2() (events.APIGatewayV2HTTPRequest, bool) {
	r, a := req.r, req.api
	body, b64, ok := bodyOf(req.body, !isText(r.Header.Get("Content-Type"), req.body))
	ev := events.APIGatewayV2HTTPRequest{
		Version:         "2.0",
		RouteKey:        req.route.Key(),
		RawPath:         r.URL.EscapedPath(),
		RawQueryString:  r.URL.RawQuery,
		Cookies:         cookies(r),
		Headers:         headersV2(r),
		PathParameters:  req.params,
		StageVariables:  a.Variables,
		Body:            body,
		IsBase64Encoded: b64,
		RequestContext: events.APIGatewayV2HTTPRequestContext{
			RouteKey:     req.route.Key(),
			AccountID:    AccountID,
			Stage:        a.StageName(),
			RequestID:    req.id,
			Authorizer:   req.auth.v2,
			APIID:        APIID,
			DomainName:   r.Host,
			DomainPrefix: domainPrefix(r.Host),
			Time:         req.now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			TimeEpoch:    req.now.UnixMilli(),
			HTTP: events.APIGatewayV2HTTPRequestContextHTTPDescription{
				Method: r.Method, Path: r.URL.Path, Protocol: r.Proto, SourceIP: sourceIP(r), UserAgent: r.UserAgent(),
			},
		},
	}
	if q, _ := url.ParseQuery(r.URL.RawQuery); len(q) > 0 {
		ev.QueryStringParameters = map[string]string{}
		for k, vs := range q {
			ev.QueryStringParameters[k] = strings.Join(vs, ",")
		}
	}
	return ev, ok
}

// headersV2 are an HTTP API's payload 2.0 headers: lower-case names,
// repeated headers joined with ",", the Host and the X-Forwarded-*
// headers, and no Cookie header (its cookies are in cookies).
func headersV2(r *http.Request) map[string]string {
	h := map[string]string{"host": r.Host}
	for k, vs := range r.Header {
		if k == "Cookie" {
			continue
		}
		h[strings.ToLower(k)] = strings.Join(vs, ",")
	}
	for k, v := range forwarded(r) {
		h[strings.ToLower(k)] = v
	}
	return h
}

// cookies are the request's cookies, one "name=value" each, from every
// Cookie header; nil when it has none.
func cookies(r *http.Request) []string {
	var out []string
	for _, line := range r.Header.Values("Cookie") {
		for _, c := range strings.Split(line, ";") {
			if c = strings.TrimSpace(c); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

// domainPrefix is the first label of a host, as API Gateway's
// requestContext.domainPrefix.
func domainPrefix(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	prefix, _, _ := strings.Cut(host, ".")
	return prefix
}

// acceptBest is the one of offers the request's Accept header admits first
// by its quality (Werkzeug's MIMEAccept.best_match, which SAM CLI asks,
// LAS _should_base64_decode_body): "" when there is no Accept header or it
// admits none.
func acceptBest(accept string, offers []string) string {
	if accept == "" {
		return ""
	}
	type rangeQ struct {
		typ string
		q   float64
	}
	var ranges []rangeQ
	for _, part := range strings.Split(accept, ",") {
		t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			q = parseQ(v)
		}
		ranges = append(ranges, rangeQ{t, q})
	}
	best, bestQ := "", 0.0
	for _, offer := range offers {
		o := mediaType(offer)
		for _, rg := range ranges {
			if rg.q <= 0 {
				continue
			}
			major, _, _ := strings.Cut(o, "/")
			if rg.typ == "*/*" || rg.typ == o || strings.HasSuffix(rg.typ, "/*") && strings.TrimSuffix(rg.typ, "/*") == major {
				if rg.q > bestQ {
					best, bestQ = offer, rg.q
				}
			}
		}
	}
	return best
}

func parseQ(v string) float64 {
	q, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return 0
	}
	return q
}

// binaryAllowed is isBinary for a response's Content-Type.
func binaryAllowed(types []string, ct string) bool {
	return slices.Contains(types, "*/*") || isBinary(types, ct)
}
