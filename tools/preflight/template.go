package preflight

// The facts the template rules read (rules/template) that a resolved
// stack does not hand them as properties: the routes of its REST APIs,
// what guards each and the function it reaches. And the allowlist, the one
// committed file where exceptions are made on purpose, each with its
// reason.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// The committed files of the template rules, relative to the repository.
const (
	AllowlistFile = "tools/preflight/allowlist.yaml"
	StatefulFile  = "tools/preflight/testdata/stateful.json"
)

// regenerate is the command that rewrites StatefulFile.
const regenerate = "`UPDATE_PREFLIGHT=1 go test ./tools/preflight -run TestStatefulReference`"

// stackFunctions maps the name of each function of the stack (its Ref)
// to its logical id.
func stackFunctions(r *samtemplate.Resolved) map[string]string {
	out := map[string]string{}
	for _, id := range r.ResourcesOfType("AWS::Lambda::Function") {
		if name, err := r.Value(map[string]any{"Ref": id}); err == nil {
			out[fmt.Sprint(name)] = id
		}
	}
	return out
}

// functionName is the name of the function that a FunctionName (a name,
// a name with a qualifier, a full or partial ARN of the function, an alias
// or a version) or an API Gateway Lambda URI (…/functions/<ARN>/invocations)
// names.
func functionName(s string) string {
	if _, after, ok := strings.Cut(s, "/functions/"); ok {
		s, _, _ = strings.Cut(after, "/invocations")
	}
	if _, after, ok := strings.Cut(s, ":function:"); ok {
		s = after
	}
	name, _, _ := strings.Cut(s, ":")
	return name
}

// apiRoute is one method of a RestApi of the stack.
type apiRoute struct {
	method     string // GET, POST, ..., ANY
	path       string // as declared: /plants/{id}
	authorized bool   // a Lambda authorizer of the stack guards it
	instead    string // what guards it instead, for a finding
	function   string // the function its integration invokes, "" for none
	resource   string // the AWS::ApiGateway::Method that declares it, "" for the API's Body
}

func (rt apiRoute) name() string { return rt.method + " " + rt.path }

// arn is the route's part of an execute-api ARN: METHOD/path, ANY as *,
// each {parameter} (and {proxy+}) as *.
func (rt apiRoute) arn() string {
	method := rt.method
	if method == "ANY" {
		method = "*"
	}
	parts := strings.Split(rt.path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "{") && strings.HasSuffix(p, "}") {
			parts[i] = "*"
		}
	}
	return method + strings.Join(parts, "/")
}

// restAPI is an AWS::ApiGateway::RestApi of the stack: its Ref, stages,
// routes and the functions that are its Lambda authorizers.
type restAPI struct {
	id, ref     string
	stages      []string
	routes      []apiRoute
	authorizers map[string]bool // function names
}

// openAPIMethods are the operations of an OpenAPI path item, and API
// Gateway's any-method extension.
var openAPIMethods = map[string]string{
	"get": "GET", "put": "PUT", "post": "POST", "delete": "DELETE", "options": "OPTIONS", "head": "HEAD", "patch": "PATCH",
	"x-amazon-apigateway-any-method": "ANY",
}

// restAPIsOf reads the stack's REST APIs: the routes of each RestApi's
// inline OpenAPI Body (what SAM makes of the Api events) and of any
// AWS::ApiGateway::Method, with what guards each; and what it cannot read
// ({"id", "msg", "fix"}, the facts' unread_apis).
func restAPIsOf(r *samtemplate.Resolved) ([]*restAPI, []any) {
	var apis []*restAPI
	out := []any{}
	unread := func(id, msg, fix string) { out = append(out, map[string]any{"id": id, "msg": msg, "fix": fix}) }
	byID := map[string]*restAPI{}
	fns := stackFunctions(r)
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::RestApi") {
		ref, _ := r.Value(map[string]any{"Ref": id})
		api := &restAPI{id: id, ref: fmt.Sprint(ref), authorizers: map[string]bool{}}
		apis = append(apis, api)
		byID[id] = api
		p, err := r.Properties(id)
		if err != nil {
			unread(id, "cannot be resolved: "+err.Error(), "")
			continue
		}
		body, ok := p["Body"].(map[string]any)
		if !ok {
			if p["BodyS3Location"] != nil {
				unread(id, "has its OpenAPI definition in S3 (BodyS3Location): the preflight cannot read its routes and their authorizers",
					"define the API inline (SAM's Api events or DefinitionBody)")
			}
			continue
		}
		schemes := lambdaAuthorizers(body, fns)
		for _, fn := range schemes {
			api.authorizers[fn] = true
		}
		paths, _ := body["paths"].(map[string]any)
		for path, item := range paths {
			ops, _ := item.(map[string]any)
			for key, opv := range ops {
				method, ok := openAPIMethods[strings.ToLower(key)]
				if !ok {
					continue
				}
				op, _ := opv.(map[string]any)
				// OpenAPI 3.0, "Operation Object": an operation's security
				// overrides the API's top-level security; [] removes it.
				sec, has := op["security"]
				if !has {
					sec = body["security"]
				}
				authorized, instead := guardedBy(sec, schemes)
				rt := apiRoute{method: method, path: path, authorized: authorized, instead: instead}
				integration, _ := op["x-amazon-apigateway-integration"].(map[string]any)
				if uri, ok := integration["uri"].(string); ok && strings.Contains(uri, ":lambda:path/") {
					rt.function = functionName(uri)
				}
				api.routes = append(api.routes, rt)
			}
		}
	}
	// Authorizers, stages and methods declared as resources of their own.
	authorizerFns := map[string]string{} // AWS::ApiGateway::Authorizer id -> function name
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::Authorizer") {
		p, _ := r.Properties(id)
		api := byID[samtemplate.RefTo(rawProperties(r, id)["RestApiId"])]
		uri, _ := p["AuthorizerUri"].(string)
		typ, _ := p["Type"].(string)
		if api == nil || (typ != "TOKEN" && typ != "REQUEST") || fns[functionName(uri)] == "" {
			continue
		}
		authorizerFns[id] = functionName(uri)
		api.authorizers[functionName(uri)] = true
	}
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::Stage") {
		if api := byID[samtemplate.RefTo(rawProperties(r, id)["RestApiId"])]; api != nil {
			p, _ := r.Properties(id)
			if name, ok := p["StageName"].(string); ok {
				api.stages = append(api.stages, name)
			}
		}
	}
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::Method") {
		raw := rawProperties(r, id)
		api := byID[samtemplate.RefTo(raw["RestApiId"])]
		if api == nil {
			unread(id, "names no RestApi of this template (RestApiId is not its Ref): the preflight cannot tell whose route it is", "")
			continue
		}
		path, ok := resourcePath(r, raw["ResourceId"], 0)
		if !ok {
			unread(id, "has a ResourceId that is neither the API's RootResourceId nor an AWS::ApiGateway::Resource of the template: the preflight cannot tell its path", "")
			continue
		}
		p, err := r.Properties(id)
		if err != nil {
			unread(id, "cannot be resolved: "+err.Error(), "")
			continue
		}
		method := strings.ToUpper(fmt.Sprint(p["HttpMethod"]))
		authType, _ := p["AuthorizationType"].(string)
		rt := apiRoute{method: method, path: path, resource: id}
		switch fn := authorizerFns[samtemplate.RefTo(raw["AuthorizerId"])]; {
		case authType == "CUSTOM" && fn != "":
			rt.authorized = true
		case authType == "CUSTOM":
			rt.instead = "an AuthorizerId that is no Lambda authorizer of this stack"
		default:
			rt.instead = "AuthorizationType " + cmp.Or(authType, "NONE")
		}
		integration, _ := p["Integration"].(map[string]any)
		if uri, ok := integration["Uri"].(string); ok && strings.Contains(uri, ":lambda:path/") {
			rt.function = functionName(uri)
		}
		api.routes = append(api.routes, rt)
	}
	for _, api := range apis {
		sort.Slice(api.routes, func(i, j int) bool { return api.routes[i].name() < api.routes[j].name() })
	}
	return apis, out
}

// lambdaAuthorizers are the OpenAPI security schemes that are Lambda
// authorizers (TOKEN or REQUEST: API Gateway's AuthorizationType CUSTOM)
// of a function of the stack, by scheme name, with the function's name.
// API Gateway developer guide, "x-amazon-apigateway-authorizer object".
func lambdaAuthorizers(body map[string]any, fns map[string]string) map[string]string {
	out := map[string]string{}
	components, _ := body["components"].(map[string]any)
	for _, group := range []any{components["securitySchemes"], body["securityDefinitions"]} {
		schemes, _ := group.(map[string]any)
		for name, s := range schemes {
			scheme, _ := s.(map[string]any)
			authorizer, _ := scheme["x-amazon-apigateway-authorizer"].(map[string]any)
			typ, _ := authorizer["type"].(string)
			uri, _ := authorizer["authorizerUri"].(string)
			if t := strings.ToLower(typ); (t == "token" || t == "request") && fns[functionName(uri)] != "" {
				out[name] = functionName(uri)
			}
		}
	}
	return out
}

// guardedBy says whether an operation's security requirements admit only
// callers that a Lambda authorizer of the stack has passed: OpenAPI's
// requirements are alternatives (any one suffices, and {} is anonymous),
// so each must name such a scheme. SAM writes `Auth: {Authorizer: NONE}` as
// [{"NONE": []}], a scheme that does not exist: no authorizer.
func guardedBy(sec any, schemes map[string]string) (bool, string) {
	reqs := asList(sec)
	if len(reqs) == 0 {
		return false, "no security requirement"
	}
	for _, q := range reqs {
		m, _ := q.(map[string]any)
		ok := false
		for name := range m {
			if schemes[name] != "" {
				ok = true
			}
		}
		if !ok {
			return false, "security " + oneLineJSON(sec, 80)
		}
	}
	return true, ""
}

// rawProperties are a resource's Properties as the template has them.
func rawProperties(r *samtemplate.Resolved, id string) map[string]any {
	res, _ := r.Resource(id)
	p, _ := res["Properties"].(map[string]any)
	return p
}

// resourcePath is the path of an AWS::ApiGateway::Method's ResourceId: the
// API's RootResourceId is /, an AWS::ApiGateway::Resource its parent's
// path and its PathPart.
func resourcePath(r *samtemplate.Resolved, v any, depth int) (string, bool) {
	if _, attr, ok := samtemplate.GetAttOf(v); ok && attr == "RootResourceId" {
		return "/", true
	}
	id := samtemplate.RefTo(v)
	res, ok := r.Resource(id)
	if !ok || res["Type"] != "AWS::ApiGateway::Resource" || depth > 32 {
		return "", false
	}
	raw := rawProperties(r, id)
	parent, ok := resourcePath(r, raw["ParentId"], depth+1)
	part, isString := raw["PathPart"].(string)
	if !ok || !isString {
		return "", false
	}
	return strings.TrimSuffix(parent, "/") + "/" + part, true
}

// kindReach is the allowlist's kind for a reach outside the stacks that
// cannot be scoped (access.go); what: "<variant> <role or boundary> <service>".
const kindReach = "reach"

// Allowlist is AllowlistFile: the exceptions to the template rules, each
// with its reason.
type Allowlist struct {
	Entries []AllowEntry `yaml:"entries"`
}

// AllowEntry is one exception.
type AllowEntry struct {
	Kind   string `yaml:"kind"`
	What   string `yaml:"what"`
	Reason string `yaml:"reason"`
	Line   int    `yaml:"-"` // in the file, for a finding
}

// ParseAllowlist reads an allowlist; an unknown field is an error (a
// misspelt reason would otherwise read as none).
func ParseAllowlist(raw []byte) (*Allowlist, error) {
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	var a Allowlist
	if err := dec.Decode(&a); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var lines struct{ Entries []yaml.Node }
	_ = yaml.Unmarshal(raw, &lines)
	for i := range min(len(a.Entries), len(lines.Entries)) {
		a.Entries[i].Line = lines.Entries[i].Line
	}
	return &a, nil
}

// LoadAllowlist reads AllowlistFile.
func LoadAllowlist(path string) (*Allowlist, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	a, err := ParseAllowlist(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return a, nil
}

// oneLineJSON is v in JSON, cut to at most n bytes.
func oneLineJSON(v any, n int) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(raw)
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
