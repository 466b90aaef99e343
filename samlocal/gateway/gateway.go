// Package gateway is a local stand-in for an API Gateway REST API, built from
// what tools/samtemplate reads of template.yaml: its routes, its Lambda TOKEN
// authorizer (identity header, validation expression, result cache, policy
// evaluation), its stage throttle and its gateway responses, in front of
// Lambda functions reached through Invoker. make start-api serves it; the
// rules it follows are API Gateway's documented ones, cited where they are
// applied. It never ships.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
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
	// MaxPayload is the request payload limit, 10 MB.
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
	// IntegrationTimeout is the longest an integration may take, 29 s.
	IntegrationTimeout = 29 * time.Second
	// BodyTimeout bounds how long a client may take to send its body. API
	// Gateway states no figure; a client that needs longer than the whole
	// integration may take is not one to wait for.
	BodyTimeout = 30 * time.Second
)

// Gateway is an http.Handler that serves an API as API Gateway would.
type Gateway struct {
	// IntegrationTimeout and BodyTimeout are the package's constants unless
	// a test sets them before serving.
	IntegrationTimeout time.Duration
	BodyTimeout        time.Duration

	api      *samtemplate.API
	invoker  Invoker
	now      func() time.Time
	logger   *slog.Logger
	validate *regexp.Regexp
	limiter  *rate.Limiter

	mu    sync.Mutex
	cache map[string]cached // authorizer answers by identity value
}

type cached struct {
	answer  authorizerAnswer
	refused bool // the authorizer answered "Unauthorized"
	expires time.Time
}

// New returns a gateway for api.
func New(api *samtemplate.API, invoker Invoker, now func() time.Time, logger *slog.Logger) (*Gateway, error) {
	g := &Gateway{
		IntegrationTimeout: IntegrationTimeout, BodyTimeout: BodyTimeout,
		api: api, invoker: invoker, now: now, logger: logger, cache: map[string]cached{},
	}
	if a := api.Authorizer; a != nil && a.ValidationExpression != "" {
		re, err := regexp.Compile(a.ValidationExpression)
		if err != nil {
			return nil, fmt.Errorf("authorizer %s: ValidationExpression: %w", a.Name, err)
		}
		g.validate = re
	}
	if api.RateLimit > 0 {
		g.limiter = rate.NewLimiter(rate.Limit(api.RateLimit), int(api.BurstLimit))
	}
	return g, nil
}

// ServeHTTP follows the order of a REST API: route, throttle, authorizer,
// integration. The stage's throttle counts every request to a method,
// refused ones included (see docs/security.md, "Throttling and anonymous
// clients"). A TOKEN authorizer needs only a header, so the body is read
// after it: an unauthenticated client's body is never read.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	route := g.match(r)
	if route == nil {
		// REST APIs answer an unknown resource or method as a missing token.
		trace.Note(r.Context(), "route", "no resource or method matches")
		g.respond(w, "MISSING_AUTHENTICATION_TOKEN", "Missing Authentication Token")
		return
	}
	trace.Note(r.Context(), "route", route.Method+" "+route.Path+" → "+route.Function)
	if g.limiter != nil && !g.limiter.AllowN(g.now(), 1) {
		trace.Note(r.Context(), "throttle", "over the stage's rate or burst")
		g.respond(w, "THROTTLED", "Too Many Requests")
		return
	}
	if headerBytes(r) > MaxHeaderBytes {
		g.respondStatus(w, "DEFAULT_4XX", http.StatusRequestHeaderFieldsTooLarge, "Request Header Fields Too Large")
		return
	}
	authorizer := map[string]any{}
	if route.Authorizer != nil {
		var typ, msg string
		span := trace.Begin(r.Context(), "authorizer")
		var found authorization
		authorizer, typ, msg, found = g.authorize(r, route)
		span.End(found.detail(typ), found.policy)
		if typ != "" {
			g.respond(w, typ, msg)
			return
		}
	}
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(g.BodyTimeout)) // unsupported only by test recorders
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxPayload+1))
	if err != nil {
		g.respondStatus(w, "DEFAULT_4XX", http.StatusRequestTimeout, "Request Timeout")
		return
	}
	if len(body) > MaxPayload {
		g.respond(w, "REQUEST_TOO_LARGE", "Request Too Long")
		return
	}
	g.integrate(w, r, route, body, authorizer)
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

// Serves says whether a route of the gateway's API takes r.
func (g *Gateway) Serves(r *http.Request) bool { return g.match(r) != nil }

// ID is the logical ID of the gateway's API.
func (g *Gateway) ID() string { return g.api.ID }

func (g *Gateway) match(r *http.Request) *samtemplate.Route {
	for i, rt := range g.api.Routes {
		if rt.Path == r.URL.Path && (rt.Method == r.Method || rt.Method == "ANY") {
			return &g.api.Routes[i]
		}
	}
	return nil
}

// methodARN is the ARN the authorizer is asked about and its policy is
// evaluated against: arn:aws:execute-api:{region}:{account}:{api}/{stage}/{method}/{path}.
func (g *Gateway) methodARN(route *samtemplate.Route) string {
	return fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/%s/%s/%s", Region, AccountID, APIID, g.api.Stage, route.Method, strings.TrimPrefix(route.Path, "/"))
}

type authorizerAnswer struct {
	PrincipalID    string         `json:"principalId"`
	PolicyDocument *policy        `json:"policyDocument"`
	Context        map[string]any `json:"context"`
}

type policy struct {
	Statement []statement `json:"Statement"`
}

type statement struct {
	Effect   string     `json:"Effect"`
	Action   stringList `json:"Action"`
	Resource stringList `json:"Resource"`
}

// stringList is an IAM field that is a string or a list of strings.
type stringList []string

func (s *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*s = many
	return nil
}

// authorize runs the TOKEN authorizer: the identity header must be present
// and match the validation expression, or the answer is UNAUTHORIZED without
// calling the function; an answer is cached per identity value for the TTL;
// "Unauthorized" is UNAUTHORIZED, any other failure AUTHORIZER_FAILURE, an
// answer without a principal or policy AUTHORIZER_CONFIGURATION_ERROR; the
// policy must Allow, and not Deny, execute-api:Invoke on the method ARN, else
// ACCESS_DENIED. (API Gateway developer guide: "Use API Gateway Lambda
// authorizers" and "Output from an API Gateway Lambda authorizer".)
func (g *Gateway) authorize(r *http.Request, route *samtemplate.Route) (map[string]any, string, string, authorization) {
	a := g.api.Authorizer
	identity := r.Header.Get(a.Header)
	if identity == "" {
		return nil, "UNAUTHORIZED", "Unauthorized", authorization{how: "no " + a.Header + " header"}
	}
	if g.validate != nil && !g.validate.MatchString(identity) {
		return nil, "UNAUTHORIZED", "Unauthorized", authorization{how: "the validation expression refused it; the function was not called"}
	}
	arn := g.methodARN(route)
	c, hit := g.cached(identity)
	how := authorization{how: "cache hit"}
	if !hit {
		how.how = "cache miss"
		payload, _ := json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: identity, MethodArn: arn})
		answer, failed, err := g.invoker.Invoke(context.WithoutCancel(r.Context()), a.Function, payload)
		switch {
		case err != nil:
			g.logger.Error("authorizer not reached", "error", err.Error())
			return nil, "AUTHORIZER_FAILURE", "", how
		case failed:
			var doc struct {
				ErrorMessage string `json:"errorMessage"`
			}
			if json.Unmarshal(answer, &doc) != nil || doc.ErrorMessage != "Unauthorized" {
				g.logger.Warn("authorizer failed", "answer", string(answer))
				return nil, "AUTHORIZER_FAILURE", "", how
			}
			c = cached{refused: true}
		default:
			if json.Unmarshal(answer, &c.answer) != nil || c.answer.PrincipalID == "" || c.answer.PolicyDocument == nil {
				g.logger.Warn("authorizer answer is not a policy", "answer", string(answer))
				return nil, "AUTHORIZER_CONFIGURATION_ERROR", "", how
			}
		}
		g.store(identity, c)
	}
	if c.refused {
		return nil, "UNAUTHORIZED", "Unauthorized", how
	}
	if doc, err := json.MarshalIndent(c.answer.PolicyDocument, "", "  "); err == nil {
		how.policy = string(doc)
	}
	how.principal = c.answer.PrincipalID
	if !allows(c.answer.PolicyDocument, arn) {
		return nil, "ACCESS_DENIED", "User is not authorized to access this resource", how
	}
	ctx := map[string]any{"principalId": c.answer.PrincipalID}
	for k, v := range c.answer.Context {
		ctx[k] = v
	}
	return ctx, "", "", how
}

// authorization is what the trace shows of an authorization: how the
// answer was found (cache hit or miss, or no call at all), the principal
// and the policy.
type authorization struct {
	how, principal, policy string
}

// detail is the step's line: how, then the decision (typ is the gateway
// response it led to, "" when the request may pass).
func (a authorization) detail(typ string) string {
	decision := "allowed"
	switch typ {
	case "":
	case "ACCESS_DENIED":
		decision = "denied by the policy"
	case "UNAUTHORIZED":
		decision = "refused (Unauthorized)"
	default:
		decision = "failed (" + typ + ")"
	}
	if a.principal != "" {
		decision += ", principal " + a.principal
	}
	return a.how + ", " + decision
}

func (g *Gateway) cached(identity string) (cached, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.cache[identity]
	if !ok || !g.now().Before(c.expires) {
		delete(g.cache, identity)
		return cached{}, false
	}
	return c, true
}

func (g *Gateway) store(identity string, c cached) {
	ttl := time.Duration(g.api.Authorizer.TTL) * time.Second
	if ttl <= 0 {
		return
	}
	c.expires = g.now().Add(ttl)
	g.mu.Lock()
	g.cache[identity] = c
	g.mu.Unlock()
}

// allows evaluates the policy as IAM does for one action on one resource:
// an explicit Deny wins, then an Allow, and nothing matching is a deny.
func allows(p *policy, arn string) bool {
	allowed := false
	for _, s := range p.Statement {
		if !anyMatch(s.Action, "execute-api:Invoke") || !anyMatch(s.Resource, arn) {
			continue
		}
		switch s.Effect {
		case "Deny":
			return false
		case "Allow":
			allowed = true
		}
	}
	return allowed
}

func anyMatch(patterns []string, s string) bool {
	for _, p := range patterns {
		if wildcard(p, s) {
			return true
		}
	}
	return false
}

// wildcard matches IAM's patterns: * any run of characters, ? any one.
func wildcard(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for i := len(s); i >= 0; i-- {
				if wildcard(p[1:], s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
		default:
			if s == "" || p[0] != s[0] {
				return false
			}
		}
		p, s = p[1:], s[1:]
	}
	return s == ""
}

// integrate sends a REST API proxy event (payload 1.0) to the route's
// function and writes its answer; a failed or malformed answer is the 502
// that API Gateway gives a Lambda proxy integration that did not answer.
func (g *Gateway) integrate(w http.ResponseWriter, r *http.Request, route *samtemplate.Route, body []byte, authorizer map[string]any) {
	now := g.now()
	ev := events.APIGatewayProxyRequest{
		Resource:          route.Path,
		Path:              r.URL.Path,
		HTTPMethod:        r.Method,
		Headers:           map[string]string{},
		MultiValueHeaders: map[string][]string{},
		Body:              string(body),
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:        AccountID,
			ResourceID:       "local",
			Stage:            g.api.Stage,
			RequestID:        rand.Text(),
			Identity:         events.APIGatewayRequestIdentity{SourceIP: sourceIP(r), UserAgent: r.UserAgent()},
			ResourcePath:     route.Path,
			Authorizer:       authorizer,
			HTTPMethod:       r.Method,
			RequestTime:      now.UTC().Format("02/Jan/2006:15:04:05 -0700"),
			RequestTimeEpoch: now.UnixMilli(),
			APIID:            APIID,
			Path:             "/" + g.api.Stage + r.URL.Path,
			Protocol:         r.Proto,
			DomainName:       r.Host,
		},
	}
	for k, vs := range r.Header {
		ev.MultiValueHeaders[k] = vs
		ev.Headers[k] = vs[len(vs)-1]
	}
	if q := r.URL.Query(); len(q) > 0 {
		ev.QueryStringParameters, ev.MultiValueQueryStringParameters = map[string]string{}, map[string][]string{}
		for k, vs := range q {
			ev.MultiValueQueryStringParameters[k] = vs
			ev.QueryStringParameters[k] = vs[len(vs)-1]
		}
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		g.respond(w, "DEFAULT_5XX", "Internal server error")
		return
	}
	// Lambda refuses an event over its quota (413
	// RequestEntityTooLargeException) before the function runs, and a REST
	// API then answers the client 413 {"message": "Request Too Long"}, with
	// x-amzn-ErrorType BadRequestException and a REST API's x-amz-apigw-id:
	// observed on a deployed API in koki-develop/lgtm-generator#10 (2021),
	// beside the different 413 past the 10 MB quota. That status and message
	// are the REQUEST_TOO_LARGE gateway response's, so it is answered as that
	// type, as past MaxPayload: the template's REQUEST_TOO_LARGE where it
	// defines one (the report does not show a customised one here; every
	// other response of a type follows the template). Lambda's guide
	// ("Handling Lambda errors with an API Gateway API") says more generally
	// that an invocation the Lambda API rejects is a 500; for this rejection
	// the observed answer is the 413.
	if len(payload) > MaxInvokePayload {
		g.logger.Warn("proxy event over Lambda's invoke payload quota; the function is not invoked", "function", route.Function, "bytes", len(payload))
		g.respond(w, "REQUEST_TOO_LARGE", "Request Too Long")
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), g.IntegrationTimeout)
	defer cancel()
	answer, failed, err := g.invoker.Invoke(ctx, route.Function, payload)
	if ctx.Err() != nil {
		g.logger.Error("integration timed out", "function", route.Function, "timeout", g.IntegrationTimeout.String())
		g.respond(w, "INTEGRATION_TIMEOUT", "Endpoint request timed out")
		return
	}
	if err != nil || failed {
		g.logger.Error("integration failed", "function", route.Function, "error", fmt.Sprint(err), "answer", string(answer))
		g.respondStatus(w, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
		return
	}
	var resp events.APIGatewayProxyResponse
	if json.Unmarshal(answer, &resp) != nil || resp.StatusCode < 100 || resp.StatusCode > 599 {
		g.logger.Error("malformed Lambda proxy response", "function", route.Function)
		g.respondStatus(w, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
		return
	}
	out := []byte(resp.Body)
	if resp.IsBase64Encoded {
		if out, err = base64.StdEncoding.DecodeString(resp.Body); err != nil {
			g.respondStatus(w, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
			return
		}
	}
	h := w.Header()
	for k, vs := range resp.MultiValueHeaders {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	for k, v := range resp.Headers {
		h.Set(k, v)
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(out)
}

// Refuse answers a request that make start-api does not serve (one a web
// page may have sent; devserver.LoopbackOnly says which) as a 4xx the
// gateway produces itself: DEFAULT_4XX with 403, which is the template's
// {"error": 40000, "message": "the request was refused by the gateway"}
// (design.md's code for "any other 4xx the gateway produces itself"), and
// API Gateway's own {"message": "Forbidden"} where a template defines none.
func (g *Gateway) Refuse(w http.ResponseWriter) {
	g.respondStatus(w, "DEFAULT_4XX", http.StatusForbidden, "Forbidden")
}

// defaultStatus is each response type's status when the template gives none
// (API Gateway developer guide, "Gateway response types").
var defaultStatus = map[string]int{
	"ACCESS_DENIED": 403, "AUTHORIZER_CONFIGURATION_ERROR": 500, "AUTHORIZER_FAILURE": 500,
	"MISSING_AUTHENTICATION_TOKEN": 403, "REQUEST_TOO_LARGE": 413, "THROTTLED": 429, "INTEGRATION_TIMEOUT": 504,
	"UNAUTHORIZED": 401, "DEFAULT_4XX": 400, "DEFAULT_5XX": 500,
}

func (g *Gateway) respond(w http.ResponseWriter, typ, message string) {
	g.respondStatus(w, typ, defaultStatus[typ], message)
}

// respondStatus writes the gateway response typ as API Gateway does: the
// template's response of that type, else its DEFAULT_4XX or DEFAULT_5XX,
// else the built-in {"message": ...}; the status is the type's own from the
// template, else the DEFAULT_ one's, else status.
func (g *Gateway) respondStatus(w http.ResponseWriter, typ string, status int, message string) {
	fallback := "DEFAULT_4XX"
	if status >= 500 {
		fallback = "DEFAULT_5XX"
	}
	gr, ok := g.api.Responses[typ]
	def := g.api.Responses[fallback]
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
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Amzn-Errortype", typ)
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
