package samtemplate

import (
	"fmt"
	"slices"
	"strings"
)

// API is an API of the template as the local gateway serves it: a REST API
// (AWS::Serverless::Api, AWS::ApiGateway::RestApi, the implicit
// ServerlessRestApi) or an HTTP API (AWS::Serverless::HttpApi,
// AWS::ApiGatewayV2::Api, the implicit ServerlessHttpApi), with its routes,
// its authorizers, its stage, its CORS and binary settings, its throttle
// and its gateway responses. APIs reads them all; each keeps its own stage,
// variables, CORS and binary types, as API Gateway keeps them per API (SAM
// CLI keeps one set for the whole template, the last API's: see APIs).
type API struct {
	ID string
	// Type is the resource type that declares it; the implicit APIs have
	// the SAM type the SAM translator gives them.
	Type     string
	HTTP     bool // an HTTP API (API Gateway v2), else a REST API
	Implicit bool // ServerlessRestApi or ServerlessHttpApi
	// Stage is the stage name; "" for an HTTP API without one, whose stage
	// is $default (StageName).
	Stage     string
	Variables map[string]string // stage variables; nil when none
	Routes    []Route
	// Authorizer is the default authorizer (Auth.DefaultAuthorizer, or an
	// OpenAPI document's root security), nil if none.
	Authorizer  *Authorizer
	Authorizers map[string]*Authorizer // by name
	// Stage throttling from MethodSettings ("/*", "*") or an HTTP API's
	// DefaultRouteSettings: steady rate per second and burst. Zero rate
	// means no throttle was declared.
	RateLimit, BurstLimit float64
	Responses             map[string]GatewayResponse // REST: by response type
	// BinaryMediaTypes are a REST API's binary media types, "~1" read as
	// "/" (samcli/lib/providers/api_collector.py
	// normalize_binary_media_type).
	BinaryMediaTypes []string
	Cors             *Cors // nil when the API declares none
}

// StageName is the stage as the events and ARNs name it: an HTTP API
// without a stage name is served on $default (AE RequestContextV2.to_dict in
// samcli/local/events/api_event.py; API Gateway's "$default stage").
func (a *API) StageName() string {
	if a.Stage == "" && a.HTTP {
		return "$default"
	}
	return a.Stage
}

// Route is one method and path of an API.
type Route struct {
	// Method is upper-case; ANY takes every method of anyMethods.
	Method string
	// Path is a path template (/plants/{id}, /files/{proxy+}), or
	// DefaultRoute.
	Path string
	// Function is the logical ID of the Go function that serves it; ""
	// when none does, and Unserved says why.
	Function string
	Unserved string
	// Except are the methods of an ANY route that a route of another API
	// takes (SAM CLI's precedence, APIs).
	Except []string
	// Authorizer guards the route; nil when none does.
	Authorizer *Authorizer
	// Scopes are the route's AuthorizationScopes (a JWT authorizer's).
	Scopes []string
	// PayloadVersion is the Lambda payload format: "1.0" for a REST API,
	// "2.0" or "1.0" for an HTTP API.
	PayloadVersion string
	// OperationName is the operationId or OperationName (REST only in
	// the event, as under SAM CLI).
	OperationName string
	// Cors is the route's own CORS (a CloudFormation OPTIONS method's
	// response parameters), nil to take the API's.
	Cors *Cors
	// Source says where the template declares the route, for the lines
	// said at start.
	Source string

	authName string // the authorizer it names; "" for the API's default
	noAuth   bool   // Authorizer: NONE, or security: []
}

// DefaultRoute is an HTTP API's catch-all route key.
const DefaultRoute = "$default"

// anyMethods are the methods ANY stands for: SAM CLI's ANY_HTTP_METHODS
// (samcli/local/apigw/route.py), which are API Gateway's methods
// ("HttpMethod: DELETE, GET, HEAD, OPTIONS, PATCH, POST, PUT, ANY" in the
// REST API reference's Method resource).
var anyMethods = []string{"GET", "DELETE", "PUT", "POST", "HEAD", "OPTIONS", "PATCH"}

// AnyMethods lists the methods an ANY route takes.
func AnyMethods() []string { return slices.Clone(anyMethods) }

// Takes says whether the route takes requests of method.
func (r *Route) Takes(method string) bool {
	if slices.Contains(r.Except, method) {
		return false
	}
	return r.Method == method || r.Method == "ANY" && slices.Contains(anyMethods, method)
}

// Key is the route key API Gateway gives it: "GET /plants/{id}", "ANY
// /files/{proxy+}", or "$default" (the HTTP API route key; SAM CLI puts
// the request's method in place of ANY, samcli/local/apigw/
// local_apigw_service.py _v2_route_key, which API Gateway does not).
func (r *Route) Key() string {
	if r.Path == DefaultRoute {
		return DefaultRoute
	}
	return r.Method + " " + r.Path
}

// Authorizer is a Lambda authorizer (TOKEN or REQUEST) or an HTTP API's JWT
// authorizer.
type Authorizer struct {
	Name string
	Type string // TOKEN, REQUEST or JWT
	// Function is the Lambda authorizer's function, a Go function of the
	// template; "" when none samlocal runs is, and Unserved says why.
	Function string
	Unserved string
	// Header is a TOKEN authorizer's identity header (Identity.Header,
	// Authorization by default).
	Header string
	// IdentitySources are API Gateway's identity source expressions:
	// method.request.header.X, method.request.querystring.X,
	// stageVariables.X, context.X for a REST API; $request.header.X,
	// $request.querystring.X, $stageVariables.X, $context.X for an HTTP
	// API.
	IdentitySources      []string
	ValidationExpression string // a TOKEN authorizer's; "" when none
	// TTL is the result cache's time to live in seconds
	// (ReauthorizeEvery, authorizerResultTtlInSeconds); 0 turns it off.
	TTL int
	// PayloadVersion is "1.0" (REST) or an HTTP API Lambda authorizer's
	// AuthorizerPayloadFormatVersion.
	PayloadVersion  string
	SimpleResponses bool // EnableSimpleResponses (HTTP API, 2.0)
	// Issuer and Audience are a JWT authorizer's JwtConfiguration.
	Issuer   string
	Audience []string
}

// TokenAuthorizer is the Lambda TOKEN authorizer of earlier versions.
//
// Deprecated: use Authorizer.
type TokenAuthorizer = Authorizer

// GatewayResponse is one entry of GatewayResponses.
type GatewayResponse struct {
	StatusCode int               // 0 keeps the response type's default
	Headers    map[string]string // values unquoted
	Body       string            // the application/json template
}

// Cors is an API's CORS configuration as SAM CLI reads it (the Cors
// namedtuple of samcli/lib/providers/provider.py): each value is the
// header's, "" when not configured.
type Cors struct {
	// AllowOrigin is a REST API's origin as configured, or an HTTP API's
	// origins joined with ",".
	AllowOrigin      string
	AllowMethods     string // sorted, comma-joined, OPTIONS among them
	AllowHeaders     string
	ExposeHeaders    string // HTTP APIs only
	AllowCredentials string // "true" or ""
	MaxAge           string
}

// Implicit API logical IDs: the SAM translator adds ServerlessRestApi (stage
// Prod) for the Api events that name no RestApiId and ServerlessHttpApi
// (stage $default) for the HttpApi events that name no ApiId
// (samtranslator/plugins/api/implicit_rest_api_plugin.py and
// implicit_http_api_plugin.py, ImplicitApiResource).
const (
	ImplicitRestAPI = "ServerlessRestApi"
	ImplicitHTTPAPI = "ServerlessHttpApi"
)

// RestAPI reads the REST API with logical ID id, or the implicit one
// (ImplicitRestAPI).
func (t *Template) RestAPI(id string) (*API, error) {
	return t.api(id, false)
}

func (t *Template) api(id string, http bool) (*API, error) {
	apis, _, err := t.APIs()
	if err != nil {
		return nil, err
	}
	for _, a := range apis {
		if a.ID == id && a.HTTP == http {
			return a, nil
		}
	}
	kind := "REST"
	if http {
		kind = "HTTP"
	}
	if r := t.Map("Resources", id); r != nil && t.apiKind(id) == kind {
		return nil, fmt.Errorf("%s: no route of the template is on it", id)
	}
	return nil, fmt.Errorf("template has no %s API %q with a route", kind, id)
}

// apiKind is "REST" or "HTTP" for an API resource of the template, "" for
// any other.
func (t *Template) apiKind(id string) string {
	switch typ, _ := t.Map("Resources", id)["Type"].(string); typ {
	case "AWS::Serverless::Api", "AWS::ApiGateway::RestApi":
		return "REST"
	case "AWS::Serverless::HttpApi", "AWS::ApiGatewayV2::Api":
		return "HTTP"
	}
	return ""
}

// APIs reads every API of the template that has a route, and says in one
// line each what of them it does not serve (notes), as SAM CLI's API
// providers read them (samcli/lib/providers/sam_api_provider.py
// SamApiProvider, cfn_api_provider.py CfnApiProvider). Beyond SAM CLI:
//
//   - SAM CLI reads either the SAM resources or the CloudFormation ones,
//     whichever type comes first in the template
//     (samcli/lib/providers/api_provider.py find_api_provider), and drops
//     the other kind; samlocal reads both.
//   - SAM CLI serves one stage, one set of stage variables, one CORS
//     configuration and one set of binary media types for all APIs, the
//     last API's (api_collector.py ApiCollector.get_api); samlocal keeps
//     each API's own, as API Gateway does.
//   - JWT authorizers, which SAM CLI skips ("must be a Lambda
//     Authorizer"), are read and verified locally (gateway).
//
// Where two APIs declare one method and path, SAM CLI's precedence holds
// (sam_api_provider.py merge_routes): the implicit APIs' routes win over
// the explicit ones', and among equals the API the template mentions later
// wins (an API is mentioned at its resource or at the first function event
// that names it, ApiCollector's insertion order). The loser keeps the
// methods the winner does not take. SAM CLI keeps whole routes in a set and
// an ANY route overridden for some methods answers the others in an order
// Python's hash seed decides (#9280's neighbour; the notes' "partial ANY
// overrides"); samlocal decides per method, which is what merge_routes means.
func (t *Template) APIs() (apis []*API, notes []string, err error) {
	c, err := newCollector(t)
	if err != nil {
		return nil, nil, err
	}
	if err := c.collect(); err != nil {
		return nil, nil, err
	}
	return c.result()
}

// collector gathers routes per API, in SAM CLI's order (ApiCollector).
type collector struct {
	t        *Template
	order    []string        // API logical IDs, as first mentioned
	apis     map[string]*API // by logical ID
	read     map[string]bool // the API's own resource was read
	notes    []string
	goFns    map[string]bool
	byName   map[string]string // FunctionName or logical ID → logical ID
	cfnStage map[string]bool   // REST APIs with an AWS::ApiGateway::Stage
}

func newCollector(t *Template) (*collector, error) {
	fns, _, err := t.GoFunctions()
	if err != nil {
		return nil, err
	}
	c := &collector{t: t, apis: map[string]*API{}, read: map[string]bool{}, goFns: map[string]bool{}, byName: map[string]string{}, cfnStage: map[string]bool{}}
	for _, f := range fns {
		c.goFns[f.ID] = true
	}
	// A route's function is found by logical ID or FunctionName, as SAM
	// CLI finds it (samcli/lib/providers/sam_function_provider.py get).
	for _, id := range t.Functions() {
		c.byName[id] = id
		if name, ok := t.loose(t.Properties(id)["FunctionName"]).(string); ok && name != "" {
			if _, taken := c.byName[name]; !taken {
				c.byName[name] = id
			}
		}
	}
	return c, nil
}

// note adds a line said at start.
func (c *collector) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

// api is the API id, mentioned now if not before (ApiCollector
// add_routes and the API providers register the logical ID on first use).
func (c *collector) api(id string, http bool) *API {
	if a, ok := c.apis[id]; ok {
		return a
	}
	a := &API{ID: id, HTTP: http, Authorizers: map[string]*Authorizer{}, Responses: map[string]GatewayResponse{}}
	switch {
	case id == ImplicitRestAPI:
		a.Type, a.Implicit = "AWS::Serverless::Api", true
	case id == ImplicitHTTPAPI:
		a.Type, a.Implicit = "AWS::Serverless::HttpApi", true
	default:
		a.Type, _ = c.t.Map("Resources", id)["Type"].(string)
	}
	c.apis[id] = a
	c.order = append(c.order, id)
	return a
}

// function finds the Go function a route or authorizer names (a logical
// ID or a FunctionName): its logical ID, or "" and why not.
func (c *collector) function(name string) (id, why string) {
	id, ok := c.byName[name]
	switch {
	case !ok:
		return "", fmt.Sprintf("it names %q, which is no function of the template", name)
	case !c.goFns[id]:
		return "", fmt.Sprintf("its function %s is not one samlocal runs (see its line)", id)
	}
	return id, ""
}

// collect reads the template's resources in order.
func (c *collector) collect() error {
	t := c.t
	for _, id := range t.ResourceOrder() {
		r := t.Map("Resources", id)
		var err error
		switch typ, _ := r["Type"].(string); typ {
		case "AWS::Serverless::Function":
			err = c.functionEvents(id)
		case "AWS::Serverless::Api":
			err = c.serverlessAPI(id, false)
		case "AWS::Serverless::HttpApi":
			err = c.serverlessAPI(id, true)
		case "AWS::ApiGateway::RestApi", "AWS::ApiGateway::Stage", "AWS::ApiGateway::Method",
			"AWS::ApiGateway::Authorizer", "AWS::ApiGateway::GatewayResponse", "AWS::ApiGateway::Deployment",
			"AWS::ApiGatewayV2::Api", "AWS::ApiGatewayV2::Route", "AWS::ApiGatewayV2::Stage", "AWS::ApiGatewayV2::Authorizer":
			err = c.cloudFormation(id, typ)
		}
		if err != nil {
			return err
		}
	}
	// The implicit APIs' resources come last (the plugins append them),
	// with Globals' properties.
	for _, id := range []string{ImplicitRestAPI, ImplicitHTTPAPI} {
		if _, ok := c.apis[id]; ok && !c.read[id] && t.Map("Resources", id) == nil {
			if err := c.serverlessAPIProps(c.apis[id], map[string]any{}); err != nil {
				return err
			}
		}
	}
	return nil
}

// result links the routes to their authorizers, applies the precedence and
// leaves out the APIs without routes.
func (c *collector) result() ([]*API, []string, error) {
	var explicit, implicit []*API
	for _, id := range c.order {
		a := c.apis[id]
		c.linkAuthorizers(a)
		if a.Implicit {
			implicit = append(implicit, a)
		} else {
			explicit = append(explicit, a)
		}
	}
	ordered := append(explicit, implicit...)
	// The winner of each path and method: the last to declare it.
	type owner struct{ api, route int }
	winner := map[string]owner{}
	for i, a := range ordered {
		for j, r := range a.Routes {
			for _, m := range methodsOf(r.Method) {
				winner[r.Path+" "+m] = owner{i, j}
			}
		}
	}
	var out []*API
	for i, a := range ordered {
		var kept []Route
		for j, r := range a.Routes {
			var lost []string
			for _, m := range methodsOf(r.Method) {
				if w := winner[r.Path+" "+m]; w != (owner{i, j}) {
					lost = append(lost, m)
				}
			}
			switch {
			case len(lost) == len(methodsOf(r.Method)):
				if w := winner[r.Path+" "+methodsOf(r.Method)[0]]; w.api != i {
					c.note("%s: %s %s is not served by %s: %s declares it too, and wins (SAM CLI's precedence: implicit APIs, then the API the template mentions later)",
						a.ID, r.Method, r.Path, a.ID, ordered[w.api].ID)
				}
				continue
			case len(lost) > 0:
				r.Except = lost
			}
			kept = append(kept, r)
		}
		a.Routes = kept
		if len(kept) > 0 {
			out = append(out, a)
		}
	}
	return out, c.notes, nil
}

// methodsOf is the methods a route's method takes.
func methodsOf(method string) []string {
	if method == "ANY" {
		return anyMethods
	}
	return []string{method}
}

// linkAuthorizers sets each route's authorizer: the one it names, else the
// API's default; none for Authorizer: NONE (COL _link_authorizers in
// samcli/lib/providers/api_collector.py). A name the API does not define
// is said at start, and the route runs without one, as under SAM CLI.
func (c *collector) linkAuthorizers(a *API) {
	for i := range a.Routes {
		r := &a.Routes[i]
		if r.noAuth {
			continue
		}
		name := r.authName
		if name == "" {
			r.Authorizer = a.Authorizer
			continue
		}
		if az, ok := a.Authorizers[name]; ok {
			r.Authorizer = az
			continue
		}
		switch name {
		case "AWS_IAM":
			c.note("%s: %s %s: the AWS_IAM authorizer is not served (no SigV4 check); the route runs without one", a.ID, r.Method, r.Path)
		default:
			c.note("%s: %s %s: authorizer %q is not served (it is not a Lambda, JWT or defined authorizer of the API); the route runs without one", a.ID, r.Method, r.Path, name)
		}
	}
}

// functionOf reads the function an authorizer's FunctionArn names: !GetAtt
// Fn.Arn (the unqualified function, $LATEST) or !Ref Fn.Alias (its
// AutoPublishAlias, which SAM resolves to the alias ARN). Locally both run
// the function's one build. Fn must be a function of the template, as
// CloudFormation refuses a GetAtt or Ref of an undefined resource: the
// tools hand the name to make (build-Fn) and join it into a bootstrap's
// path, so only a logical ID that Parse has checked may come out.
func (t *Template) functionOf(v any) (string, error) {
	fn, attr, ok := GetAttOf(v)
	ref := RefTo(v)
	switch {
	case ok && attr == "Arn":
	case strings.HasSuffix(ref, ".Alias"):
		fn = strings.TrimSuffix(ref, ".Alias")
	default:
		return "", fmt.Errorf("FunctionArn %v is neither !GetAtt <Function>.Arn nor !Ref <Function>.Alias", v)
	}
	if !slices.Contains(t.Functions(), fn) {
		return "", fmt.Errorf("FunctionArn names %q, and the template has no function of that logical ID (it has %v)", fn, t.Functions())
	}
	if ref != "" && t.autoPublishAlias(fn) == "" {
		return "", fmt.Errorf("FunctionArn !Ref %s: %s has no AutoPublishAlias", ref, fn)
	}
	return fn, nil
}

// autoPublishAlias is a function's AutoPublishAlias, its own or the
// Globals', "" when it has none.
func (t *Template) autoPublishAlias(fn string) string {
	if a, ok := t.Map("Resources", fn, "Properties")["AutoPublishAlias"].(string); ok {
		return a
	}
	a, _ := t.Map("Globals", "Function")["AutoPublishAlias"].(string)
	return a
}

// loose resolves what of v it can as SAM CLI's IntrinsicResolver does with
// ignore_errors (samcli/lib/providers/sam_base_provider.py
// get_resolved_template_dict): an intrinsic function it cannot resolve is
// left as it is.
func (t *Template) loose(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if isIntrinsic(x) {
			out, err := t.local().Value(x)
			if err != nil {
				return x
			}
			return out
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = t.loose(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = t.loose(e)
		}
		return out
	}
	return v
}

func asMaps(v any) []map[string]any {
	var out []map[string]any
	s, _ := v.([]any)
	for _, e := range s {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// strs reads a list of strings (or one string) of the template; other
// values are left out.
func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// stringMap reads a map of strings (stage variables), stringified as a
// function's environment is.
func stringMap(v any) map[string]string {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		out[k] = stringify(e)
	}
	return out
}
