// Package gateway is a local stand-in for API Gateway: the REST and HTTP APIs
// of a SAM template (samtemplate.APIs) on one handler, in front of Lambda
// functions reached through Invoker. It routes as API Gateway routes (path
// templates, greedy variables, ANY, an HTTP API's $default; route.go),
// builds both payload formats (1.0 for REST APIs and HTTP APIs that ask for
// it, 2.0 for HTTP APIs; event.go), reads the functions' answers by SAM
// CLI's rules (response.go), answers CORS preflights (cors.go), and runs
// every authorizer: Lambda TOKEN and REQUEST authorizers with their result
// cache and policy, HTTP API Lambda authorizers (payload 1.0 and 2.0, simple
// responses) and JWT authorizers verified against the issuer's keys
// (authorizer.go, jwt.go). A REST API's stage throttle and gateway
// responses and API Gateway's quotas hold too. samlocal start-api serves
// it; the rules it follows are SAM CLI's (samcli/local/apigw/) and API
// Gateway's documented ones, cited where they are applied. It never ships.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/trace"
)

// Invoker calls a Lambda function with payload and returns its answer, or
// the error document with failed set when the function failed. The gateway
// invokes without the client's cancellation, as API Gateway does: a client
// that goes away does not stop an invocation under way.
type Invoker interface {
	Invoke(ctx context.Context, function string, payload []byte) (answer []byte, failed bool, err error)
}

// Where the local gateway pretends to be.
const (
	Region    = "us-east-1"
	AccountID = "123456789012"
	APIID     = "local"
)

// API Gateway's quotas for a REST API ("Quotas for configuring and running a
// REST API in API Gateway", and for the request line and headers the HTTP
// API table's "Total combined size of request line and header values").
const (
	// MaxPayload is the request payload limit, 10 MB (HTTP APIs' too).
	MaxPayload = 10 << 20
	// MaxInvokePayload is Lambda's quota for the request payload of a
	// synchronous invocation, 6 MB: Invoke refuses more than 6,291,456 bytes
	// ("Request must be smaller than 6291456 bytes for the InvokeFunction
	// operation"). For a Lambda proxy integration that payload is the whole
	// proxy event (the body, JSON-escaped, with the headers and the request
	// context), so it binds before MaxPayload: a body of 6 to 10 MB passes
	// the gateway's quota and never reaches the function.
	MaxInvokePayload = 6 << 20
	// MaxHeaderBytes bounds the request line and the headers, 10,240 bytes.
	MaxHeaderBytes = 10240
	// IntegrationTimeout is the longest an integration may take, 29 s
	// (an HTTP API's is 30 s, HTTPIntegrationTimeout).
	IntegrationTimeout = 29 * time.Second
	// HTTPIntegrationTimeout is an HTTP API's integration timeout
	// ("Quotas for configuring and running an HTTP API", 30 seconds).
	HTTPIntegrationTimeout = 30 * time.Second
	// BodyTimeout bounds how long a client may take to send its body. API
	// Gateway states no figure; a client that needs longer than the whole
	// integration may take is not one to wait for.
	BodyTimeout = 30 * time.Second
)

// Gateway is an http.Handler that serves a template's APIs as API Gateway
// would, on one port and one path space, as sam local start-api serves
// them.
type Gateway struct {
	// IntegrationTimeout and BodyTimeout are the package's constants unless
	// a test sets them before serving. IntegrationTimeout bounds a REST
	// API's integration; an HTTP API's gets a second more, as API Gateway
	// gives it.
	IntegrationTimeout time.Duration
	BodyTimeout        time.Duration
	// Client fetches JWT issuers' discovery documents and keys
	// (http.DefaultClient when nil).
	Client *http.Client

	apis    []*api
	routes  []*compiled // every route of every API, in precedence order
	invoker Invoker
	now     func() time.Time
	logger  *slog.Logger
}

// api is one API with what the gateway keeps of it at run time.
type api struct {
	*samtemplate.API
	limiter     *rate.Limiter
	authorizers map[*samtemplate.Authorizer]*authorizer
}

// authorizer is an authorizer with its compiled expression, its result
// cache and (JWT) its issuer's keys.
type authorizer struct {
	*samtemplate.Authorizer
	validate *regexp.Regexp

	mu    sync.Mutex
	cache map[string]cached // answers by identity

	jwt *jwtKeys
}

type cached struct {
	answer  authorizerAnswer
	refused bool // the authorizer answered "Unauthorized"
	expires time.Time
}

// New returns a gateway for one API.
func New(a *samtemplate.API, invoker Invoker, now func() time.Time, logger *slog.Logger) (*Gateway, error) {
	return NewAll([]*samtemplate.API{a}, invoker, now, logger)
}

// NewAll returns a gateway for the template's APIs, as samtemplate.APIs
// reads them (their routes already past SAM CLI's precedence).
func NewAll(apis []*samtemplate.API, invoker Invoker, now func() time.Time, logger *slog.Logger) (*Gateway, error) {
	g := &Gateway{IntegrationTimeout: IntegrationTimeout, BodyTimeout: BodyTimeout, invoker: invoker, now: now, logger: logger}
	for _, sa := range apis {
		a := &api{API: sa, authorizers: map[*samtemplate.Authorizer]*authorizer{}}
		if sa.RateLimit > 0 {
			a.limiter = rate.NewLimiter(rate.Limit(sa.RateLimit), int(sa.BurstLimit))
		}
		for i := range sa.Routes {
			r := &sa.Routes[i]
			g.routes = append(g.routes, compile(a, r))
			if az := r.Authorizer; az != nil && a.authorizers[az] == nil {
				st := &authorizer{Authorizer: az, cache: map[string]cached{}}
				if az.ValidationExpression != "" {
					re, err := regexp.Compile(az.ValidationExpression)
					if err != nil {
						return nil, fmt.Errorf("%s: authorizer %s: ValidationExpression: %w", sa.ID, az.Name, err)
					}
					st.validate = re
				}
				if az.Type == "JWT" {
					st.jwt = &jwtKeys{issuer: az.Issuer}
				}
				a.authorizers[az] = st
			}
		}
		g.apis = append(g.apis, a)
	}
	return g, nil
}

// ServeHTTP follows the order of API Gateway: route, throttle, CORS
// preflight, authorizer, integration. The stage's throttle counts every
// request to a method, refused ones included (see docs/security.md,
// "Throttling and anonymous clients"). An authorizer needs only the
// request line and headers, so the body is read after it: an
// unauthenticated client's body is never read.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := g.match(r)
	if m.route == nil && r.Method == http.MethodOptions && m.api != nil && m.api.Cors != nil {
		// A path of an API with CORS takes OPTIONS: SAM CLI adds it to
		// every route (api_collector.py normalize_cors_methods), the SAM
		// translator an OPTIONS mock to every path.
		trace.Note(r.Context(), "cors", "preflight answered by the gateway ("+m.api.ID+")")
		preflight(w, r, m.api, m.api.Cors)
		return
	}
	if m.route == nil {
		trace.Note(r.Context(), "route", "no resource or method matches")
		g.respond(w, m.api, "MISSING_AUTHENTICATION_TOKEN", "Missing Authentication Token")
		return
	}
	a, route := m.api, m.route
	target := route.Function
	if target == "" {
		target = "no function"
	}
	where := ""
	if len(g.apis) > 1 {
		where = " (" + a.ID + ")" // which API, when there is a choice
	}
	trace.Note(r.Context(), "route", route.Key()+" → "+target+where)
	if a.limiter != nil && !a.limiter.AllowN(g.now(), 1) {
		trace.Note(r.Context(), "throttle", "over the stage's rate or burst")
		g.respond(w, a, "THROTTLED", "Too Many Requests")
		return
	}
	if headerBytes(r) > MaxHeaderBytes {
		g.respondStatus(w, a, "DEFAULT_4XX", http.StatusRequestHeaderFieldsTooLarge, "Request Header Fields Too Large")
		return
	}
	cors := route.Cors
	if cors == nil {
		cors = a.Cors
	}
	if r.Method == http.MethodOptions && cors != nil {
		preflight(w, r, a, cors)
		trace.Note(r.Context(), "cors", "preflight answered by the gateway")
		return
	}
	req := &request{r: r, api: a, route: route, params: m.params, id: requestID(), now: g.now()}
	if route.Authorizer != nil {
		span := trace.Begin(r.Context(), "authorizer")
		var found authorization
		var typ, msg string
		req.auth, typ, msg, found = g.authorize(req)
		span.End(found.detail(typ), found.policy)
		if typ != "" {
			if found.challenge != "" {
				w.Header().Set("Www-Authenticate", found.challenge)
			}
			g.respond(w, a, typ, msg)
			return
		}
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.BodyTimeout)) // unsupported only by test recorders
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPayload+1))
	if err != nil {
		g.respondStatus(w, a, "DEFAULT_4XX", http.StatusRequestTimeout, "Request Timeout")
		return
	}
	if len(body) > MaxPayload {
		g.respond(w, a, "REQUEST_TOO_LARGE", "Request Too Long")
		return
	}
	req.body = body
	g.integrate(w, req, cors)
}

// request is one request on its way through the gateway.
type request struct {
	r      *http.Request
	api    *api
	route  *samtemplate.Route
	params map[string]string
	id     string // the request id, the same in the authorizer's event and the function's
	now    time.Time
	body   []byte
	auth   authContext
}

// requestID is a request's id, made per request (SAM CLI's is made once
// per process, aws/aws-sam-cli#9279; API Gateway's is per request).
func requestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// headerBytes is the size of the request line and the header fields.
func headerBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + len("Host: ") + len(r.Host)
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + len(": ") + len(v)
		}
	}
	return n
}

// APIs lists the gateway's APIs.
func (g *Gateway) APIs() []*samtemplate.API {
	out := make([]*samtemplate.API, len(g.apis))
	for i, a := range g.apis {
		out[i] = a.API
	}
	return out
}

// Refuse answers a request that samlocal start-api does not serve (one a
// web page may have sent; devserver.LoopbackOnly says which) as a 4xx the
// gateway produces itself: the first REST API's DEFAULT_4XX with 403 (API
// Gateway's own {"message": "Forbidden"} where its template defines none),
// or an HTTP API's 403 {"message": "Forbidden"}.
func (g *Gateway) Refuse(w http.ResponseWriter) {
	g.respondStatus(w, g.firstREST(), "DEFAULT_4XX", http.StatusForbidden, "Forbidden")
}

// firstREST is the first REST API, whose gateway responses answer what no
// API routes; nil when the template has only HTTP APIs.
func (g *Gateway) firstREST() *api {
	for _, a := range g.apis {
		if !a.HTTP {
			return a
		}
	}
	return nil
}

// defaultStatus is each response type's status when the template gives none
// (API Gateway developer guide, "Gateway response types").
var defaultStatus = map[string]int{
	"ACCESS_DENIED": 403, "AUTHORIZER_CONFIGURATION_ERROR": 500, "AUTHORIZER_FAILURE": 500,
	"MISSING_AUTHENTICATION_TOKEN": 403, "REQUEST_TOO_LARGE": 413, "THROTTLED": 429, "INTEGRATION_TIMEOUT": 504,
	"UNAUTHORIZED": 401, "DEFAULT_4XX": 400, "DEFAULT_5XX": 500,
}

// httpAnswers are an HTTP API's own answers, which no template changes:
// {"message":"Not Found"} for a request no route takes ("Routing API
// requests" in the HTTP API guide), 401 Unauthorized and 403 Forbidden
// from an authorizer ("Working with AWS Lambda authorizers for HTTP APIs",
// "Control access to HTTP APIs with JWT authorizers"), 500 for an
// authorizer that failed, 503 for an integration past its timeout. SAM
// CLI answers an HTTP API as a REST API (403 Missing Authentication Token,
// "User is not authorized to access this resource"); API Gateway does not.
var httpAnswers = map[string]struct {
	status  int
	message string
}{
	"MISSING_AUTHENTICATION_TOKEN":   {404, "Not Found"},
	"UNAUTHORIZED":                   {401, "Unauthorized"},
	"ACCESS_DENIED":                  {403, "Forbidden"},
	"AUTHORIZER_FAILURE":             {500, "Internal Server Error"},
	"AUTHORIZER_CONFIGURATION_ERROR": {500, "Internal Server Error"},
	"THROTTLED":                      {429, "Too Many Requests"},
	"REQUEST_TOO_LARGE":              {413, "Request Entity Too Large"},
	"INTEGRATION_TIMEOUT":            {503, "Service Unavailable"},
}

func (g *Gateway) respond(w http.ResponseWriter, a *api, typ, message string) {
	g.respondStatus(w, a, typ, defaultStatus[typ], message)
}

// respondStatus writes the gateway response typ. A REST API answers as API
// Gateway does: the template's response of that type, else its DEFAULT_4XX
// or DEFAULT_5XX, else the built-in {"message": ...}; the status is the
// type's own from the template, else the DEFAULT_ one's, else status. An
// HTTP API answers with its own (httpAnswers). A nil a is a request no API
// took: the first REST API answers it, or an HTTP API's 404 when there is
// none.
func (g *Gateway) respondStatus(w http.ResponseWriter, a *api, typ string, status int, message string) {
	if a == nil {
		a = g.firstREST()
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-Errortype", typ)
	if a == nil || a.HTTP {
		if ans, ok := httpAnswers[typ]; ok {
			status, message = ans.status, ans.message
		}
		body, _ := json.Marshal(map[string]string{"message": message})
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	fallback := "DEFAULT_4XX"
	if status >= 500 {
		fallback = "DEFAULT_5XX"
	}
	gr, ok := a.Responses[typ]
	def := a.Responses[fallback]
	if !ok {
		gr = def
	}
	switch {
	case ok && gr.StatusCode != 0:
		status = gr.StatusCode
	case def.StatusCode != 0:
		status = def.StatusCode
	}
	body := []byte(gr.Body)
	if gr.Body == "" {
		body, _ = json.Marshal(map[string]any{"message": message})
	}
	for k, v := range gr.Headers {
		h.Set(k, v)
	}
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

func sourceIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
