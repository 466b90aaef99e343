package samtemplate

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// API is what a local API Gateway needs of an AWS::Serverless::Api: its
// routes (the Api events of the functions that name it), its TOKEN
// authorizer, its stage throttle and its gateway responses.
type API struct {
	ID, Stage  string
	Routes     []Route
	Authorizer *TokenAuthorizer // the default authorizer, nil if none
	// Stage throttling from MethodSettings ("/*", "*"): steady rate per
	// second and burst. Zero rate means no throttle was declared.
	RateLimit, BurstLimit float64
	Responses             map[string]GatewayResponse // by response type
}

// Route is one method and path served by a function.
type Route struct {
	Method, Path, Function string
	Authorized             bool // the API's authorizer guards it
}

// TokenAuthorizer is a Lambda TOKEN authorizer.
type TokenAuthorizer struct {
	Name, Function       string
	Header               string // Identity.Header, Authorization by default
	ValidationExpression string // "" when none
	TTL                  int    // ReauthorizeEvery, seconds; 0 turns the cache off
}

// GatewayResponse is one entry of GatewayResponses.
type GatewayResponse struct {
	StatusCode int               // 0 keeps the response type's default
	Headers    map[string]string // values unquoted
	Body       string            // the application/json template
}

// ImplicitRestAPI is the logical ID SAM gives the REST API it makes for
// the Api events that name no RestApiId (the SAM specification's
// "AWS::Serverless::Api": "an implicit API ... ServerlessRestApi"), whose
// stage is Prod.
const ImplicitRestAPI = "ServerlessRestApi"

// RestAPIs reads every REST API of the template that a function's Api
// event serves: each AWS::Serverless::Api, and the implicit one, sorted by
// logical ID.
func (t *Template) RestAPIs() ([]*API, error) {
	ids := t.Resources("AWS::Serverless::Api")
	for _, fn := range t.Functions() {
		events, _ := t.Properties(fn)["Events"].(map[string]any)
		for _, ev := range events {
			e, _ := ev.(map[string]any)
			p, _ := e["Properties"].(map[string]any)
			if e["Type"] == "Api" && p["RestApiId"] == nil && !slices.Contains(ids, ImplicitRestAPI) {
				ids = append(ids, ImplicitRestAPI)
			}
		}
	}
	slices.Sort(ids)
	var apis []*API
	for _, id := range ids {
		api, err := t.RestAPI(id)
		if errors.Is(err, errNoRoutes) {
			continue
		}
		if err != nil {
			return nil, err
		}
		apis = append(apis, api)
	}
	return apis, nil
}

var errNoRoutes = errors.New("no function has an Api event on it")

// RestAPI reads the AWS::Serverless::Api with logical ID id, or the
// implicit one (ImplicitRestAPI), whose properties are Globals.Api's.
func (t *Template) RestAPI(id string) (*API, error) {
	r := t.Map("Resources", id)
	props, _ := r["Properties"].(map[string]any)
	switch {
	case id == ImplicitRestAPI && r == nil:
		props = t.Map("Globals", "Api")
	case r == nil || r["Type"] != "AWS::Serverless::Api":
		return nil, fmt.Errorf("template has no AWS::Serverless::Api %q", id)
	default:
		if merged, ok := mergeGlobals(t.Map("Globals", "Api"), props).(map[string]any); ok {
			props = merged
		}
	}
	api := &API{ID: id, Responses: map[string]GatewayResponse{}}
	api.Stage, _ = props["StageName"].(string)
	if id == ImplicitRestAPI && r == nil {
		api.Stage = "Prod"
	}

	auth, _ := props["Auth"].(map[string]any)
	if name, _ := auth["DefaultAuthorizer"].(string); name != "" {
		authorizers, _ := auth["Authorizers"].(map[string]any)
		a, _ := authorizers[name].(map[string]any)
		if a == nil {
			return nil, fmt.Errorf("%s: DefaultAuthorizer %s is not among Auth.Authorizers", id, name)
		}
		if pt, _ := a["FunctionPayloadType"].(string); pt != "" && pt != "TOKEN" {
			return nil, fmt.Errorf("%s: authorizer %s is %s; only TOKEN authorizers are served", id, name, pt)
		}
		fn, err := t.functionOf(a["FunctionArn"])
		if err != nil {
			return nil, fmt.Errorf("%s: authorizer %s: %w", id, name, err)
		}
		ta := &TokenAuthorizer{Name: name, Function: fn, Header: "Authorization", TTL: 300}
		identity, _ := a["Identity"].(map[string]any)
		if h, ok := identity["Header"].(string); ok {
			ta.Header = h
		}
		if v, ok := identity["ValidationExpression"].(string); ok {
			ta.ValidationExpression = v
		}
		if v, ok := identity["ReauthorizeEvery"]; ok {
			n, err := t.Number(v)
			if err != nil {
				return nil, fmt.Errorf("%s: ReauthorizeEvery: %w", id, err)
			}
			ta.TTL = int(n)
		}
		api.Authorizer = ta
	}

	for _, m := range asMaps(props["MethodSettings"]) {
		if m["ResourcePath"] != "/*" || m["HttpMethod"] != "*" {
			continue
		}
		var err error
		if v, ok := m["ThrottlingRateLimit"]; ok {
			if api.RateLimit, err = t.Number(v); err != nil {
				return nil, fmt.Errorf("%s: ThrottlingRateLimit: %w", id, err)
			}
		}
		if v, ok := m["ThrottlingBurstLimit"]; ok {
			if api.BurstLimit, err = t.Number(v); err != nil {
				return nil, fmt.Errorf("%s: ThrottlingBurstLimit: %w", id, err)
			}
		}
	}

	grs, _ := props["GatewayResponses"].(map[string]any)
	for typ, v := range grs {
		m, _ := v.(map[string]any)
		gr := GatewayResponse{Headers: map[string]string{}}
		if v, ok := m["StatusCode"]; ok {
			n, err := t.Number(v)
			if err != nil {
				return nil, fmt.Errorf("%s: gateway response %s: StatusCode: %w", id, typ, err)
			}
			gr.StatusCode = int(n)
		}
		if params, ok := m["ResponseParameters"].(map[string]any); ok {
			hdrs, _ := params["Headers"].(map[string]any)
			for k, v := range hdrs {
				gr.Headers[k] = strings.TrimSuffix(strings.TrimPrefix(stringify(v), "'"), "'")
			}
		}
		if tmpl, ok := m["ResponseTemplates"].(map[string]any); ok {
			gr.Body = stringify(tmpl["application/json"])
		}
		api.Responses[typ] = gr
	}

	for _, fn := range t.Functions() {
		events, _ := t.Properties(fn)["Events"].(map[string]any)
		names := make([]string, 0, len(events))
		for name := range events {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			ev, _ := events[name].(map[string]any)
			if ev["Type"] != "Api" {
				continue
			}
			ep, _ := ev["Properties"].(map[string]any)
			if RefTo(ep["RestApiId"]) != id && !(id == ImplicitRestAPI && ep["RestApiId"] == nil) {
				continue
			}
			path, _ := ep["Path"].(string)
			method, _ := ep["Method"].(string)
			authorized := api.Authorizer != nil
			if a, ok := ep["Auth"].(map[string]any); ok && a["Authorizer"] == "NONE" {
				authorized = false
			}
			api.Routes = append(api.Routes, Route{Method: strings.ToUpper(method), Path: path, Function: fn, Authorized: authorized})
		}
	}
	if len(api.Routes) == 0 {
		return nil, fmt.Errorf("%s: %w", id, errNoRoutes)
	}
	return api, nil
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
