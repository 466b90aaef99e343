package preflight

// The template rules: what a change to template.yaml must never do to the
// deployed stack, read from the stack CloudFormation would make of it (the
// SAM translator's output, resolved for one variant). Each rule takes a
// resolved stack and returns its findings; CheckTemplate applies them all
// to every variant. Exceptions are made on purpose only, in one committed
// file, tools/preflight/allowlist.yaml, each with its reason.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
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

// statefulEnvironments are the variants that are deployed stacks
// (samconfig.toml's environments): StatefulFile holds a reference for each.
// The edge variant is make lint's, which no one deploys as such.
var statefulEnvironments = []string{"default", "dev", "prod"}

// CheckTemplate applies every template rule to the app stack of each
// variant, and checks the allowlist against them all. A finding that
// several variants share is told once, naming them.
func CheckTemplate(envs []env, allow *Allowlist, ref *StatefulReference) []Finding {
	type key struct{ id, where, rule, fix string }
	var order []key
	variants := map[key][]string{}
	for _, e := range envs {
		r := e.app
		fs := withID(idPermission, LambdaPermissionFindings(r))
		fs = append(fs, ExposureFindings(e)...)
		if slices.Contains(statefulEnvironments, e.name) {
			fs = append(fs, withID(idStateful, StatefulFindings(r, e.name, ref))...)
		}
		for _, f := range fs {
			k := key{f.ID, f.Where, f.Rule, f.Fix}
			if _, ok := variants[k]; !ok {
				order = append(order, k)
			}
			variants[k] = append(variants[k], e.name)
		}
	}
	var out []Finding
	for _, k := range order {
		where := k.where
		if where != StatefulFile {
			where = "template.yaml " + where
		}
		out = append(out, Finding{ID: k.id, Where: fmt.Sprintf("%s [%s]", where, strings.Join(variants[k], ", ")), Rule: k.rule, Fix: k.fix})
	}
	return append(out, withID(idAllowlist, AllowlistFindings(allow, envs, ref))...)
}

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
// AWS::ApiGateway::Method, with what guards each.
func restAPIsOf(r *samtemplate.Resolved) ([]*restAPI, []Finding) {
	var apis []*restAPI
	var out []Finding
	byID := map[string]*restAPI{}
	fns := stackFunctions(r)
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::RestApi") {
		ref, _ := r.Value(map[string]any{"Ref": id})
		api := &restAPI{id: id, ref: fmt.Sprint(ref), authorizers: map[string]bool{}}
		apis = append(apis, api)
		byID[id] = api
		p, err := r.Properties(id)
		if err != nil {
			out = append(out, Finding{Where: id, Rule: "cannot be resolved: " + err.Error()})
			continue
		}
		body, ok := p["Body"].(map[string]any)
		if !ok {
			if p["BodyS3Location"] != nil {
				out = append(out, Finding{Where: id, Rule: "has its OpenAPI definition in S3 (BodyS3Location): the preflight cannot read its routes and their authorizers",
					Fix: "define the API inline (SAM's Api events or DefinitionBody)"})
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
				if integration, ok := op["x-amazon-apigateway-integration"].(map[string]any); ok {
					if uri, ok := integration["uri"].(string); ok && strings.Contains(uri, ":lambda:path/") {
						rt.function = functionName(uri)
					}
				}
				api.routes = append(api.routes, rt)
			}
		}
	}
	// Authorizers, stages and methods declared as resources of their own.
	authorizerFns := map[string]string{} // AWS::ApiGateway::Authorizer id -> function name
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::Authorizer") {
		raw := rawProperties(r, id)
		p, _ := r.Properties(id)
		api := byID[samtemplate.RefTo(raw["RestApiId"])]
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
			out = append(out, Finding{Where: id, Rule: "names no RestApi of this template (RestApiId is not its Ref): the preflight cannot tell whose route it is"})
			continue
		}
		path, ok := resourcePath(r, raw["ResourceId"], 0)
		if !ok {
			out = append(out, Finding{Where: id, Rule: "has a ResourceId that is neither the API's RootResourceId nor an AWS::ApiGateway::Resource of the template: the preflight cannot tell its path"})
			continue
		}
		p, err := r.Properties(id)
		if err != nil {
			out = append(out, Finding{Where: id, Rule: "cannot be resolved: " + err.Error()})
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
		if integration, ok := p["Integration"].(map[string]any); ok {
			if uri, ok := integration["Uri"].(string); ok && strings.Contains(uri, ":lambda:path/") {
				rt.function = functionName(uri)
			}
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

// LambdaPermissionFindings: every AWS::Lambda::Permission of the stack is
// one the template means. A function's resource-based policy is who may
// invoke it besides its own account's IAM principals, and a service
// principal without a source lets any resource of that service invoke it,
// in any account (Lambda developer guide, "Granting Lambda function access
// to AWS services"; Lambda API reference, AddPermission: "If you grant
// permission to a service principal without specifying the source, other
// accounts could potentially configure resources in their account to invoke
// your Lambda function"). The cases the template means, and no other:
//
//   - API Gateway invoking a route's function: Principal
//     apigateway.amazonaws.com, Action lambda:InvokeFunction, SourceArn
//     arn:<partition>:execute-api:<region>:<account>:<api-id>/<stage>/<METHOD>/<path>
//     (API Gateway developer guide, "API Gateway Amazon Resource Name (ARN)
//     reference" and "Control access to a REST API with IAM permissions"),
//     where api-id is the Ref of a RestApi of this stack, stage * or one of
//     its stages, and METHOD and path a route the stack declares whose
//     integration invokes that function;
//   - API Gateway invoking a Lambda authorizer: SourceArn
//     …:<api-id>/authorizers/<id or *>, for a function that is a Lambda
//     authorizer of that API (what SAM makes of Auth.Authorizers).
//
// The PreTraffic hook needs no permission: CodeDeploy invokes it with its
// service role, whose AWSCodeDeployRoleForLambda allows
// lambda:InvokeFunction on functions named CodeDeployHook_*
// (testdata/managed). A permission naming a function the stack does not
// create is refused too: the stack has no business widening another's
// policy.
func LambdaPermissionFindings(r *samtemplate.Resolved) []Finding {
	const fix = "remove it; API Gateway's permissions come from SAM's Api events and Auth.Authorizers, each for one route or this API's authorizers"
	var out []Finding
	fns := stackFunctions(r)
	apis, _ := restAPIsOf(r)
	for _, id := range r.ResourcesOfType("AWS::Lambda::Permission") {
		p, err := r.Properties(id)
		if err != nil {
			out = append(out, Finding{Where: id, Rule: "cannot be resolved: " + err.Error()})
			continue
		}
		fn := functionName(fmt.Sprint(p["FunctionName"]))
		refuse := func(rule string) { out = append(out, Finding{Where: id, Rule: rule, Fix: fix}) }
		if fns[fn] == "" {
			refuse(fmt.Sprintf("grants on %v, which is no function of this stack", p["FunctionName"]))
			continue
		}
		if action, _ := p["Action"].(string); !strings.EqualFold(action, "lambda:InvokeFunction") {
			refuse(fmt.Sprintf("grants %v on %s: the template means lambda:InvokeFunction for API Gateway only", p["Action"], fns[fn]))
			continue
		}
		if p["FunctionUrlAuthType"] != nil {
			refuse(fmt.Sprintf("grants %s's function URL (FunctionUrlAuthType %v): the template means no function URL", fns[fn], p["FunctionUrlAuthType"]))
			continue
		}
		if principal := fmt.Sprint(p["Principal"]); principal != "apigateway.amazonaws.com" {
			refuse(fmt.Sprintf("lets %s invoke %s: the template means API Gateway (apigateway.amazonaws.com) alone, for its own routes and authorizer; "+
				"CodeDeploy invokes the hook with its role, not by a permission", principal, fns[fn]))
			continue
		}
		source, _ := p["SourceArn"].(string)
		if source == "" {
			refuse(fmt.Sprintf("lets API Gateway invoke %s with no SourceArn: any API of any account may", fns[fn]))
			continue
		}
		if why := sourceRefused(r.Stack(), apis, source, fn); why != "" {
			refuse(fmt.Sprintf("lets API Gateway invoke %s from %s: %s", fns[fn], source, why))
		}
	}
	return out
}

// sourceRefused says why an execute-api SourceArn is not one of this
// stack's routes (or authorizers) for the function fn; "" when it is.
func sourceRefused(s samtemplate.Stack, apis []*restAPI, source, fn string) string {
	parts := strings.SplitN(source, ":", 6)
	if len(parts) != 6 || parts[0] != "arn" || parts[2] != "execute-api" {
		return "it is not an execute-api ARN"
	}
	if parts[1] != s.Partition || parts[3] != s.Region || parts[4] != s.Account {
		return fmt.Sprintf("it names partition %q, region %q, account %q, not this stack's", parts[1], parts[3], parts[4])
	}
	apiID, rest, _ := strings.Cut(parts[5], "/")
	var candidates []*restAPI
	for _, api := range apis {
		if api.ref == apiID {
			candidates = append(candidates, api)
		}
	}
	if len(candidates) == 0 {
		return fmt.Sprintf("%q is no RestApi of this stack (its Ref), so any API of the account matches", apiID)
	}
	if authorizer, ok := strings.CutPrefix(rest, "authorizers/"); ok {
		if authorizer == "" || strings.Contains(authorizer, "/") {
			return "it names no authorizer"
		}
		for _, api := range candidates {
			if api.authorizers[fn] {
				return ""
			}
		}
		return "the function is no Lambda authorizer of that API"
	}
	stage, route, ok := strings.Cut(rest, "/")
	if !ok {
		return "it names no stage, method and path"
	}
	var served []string
	for _, api := range candidates {
		if stage != "*" && !slices.Contains(api.stages, stage) {
			continue
		}
		for _, rt := range api.routes {
			if rt.arn() != route {
				continue
			}
			if rt.function == fn {
				return ""
			}
			served = append(served, rt.name())
		}
	}
	if len(served) > 0 {
		return fmt.Sprintf("the route %s invokes another function", served[0])
	}
	return "it names no stage and route the template declares (a stage of the API or *, then METHOD/path)"
}

// Stateful resources: what a replacement loses, and the properties that
// cannot change in place. A change to one of them, or a logical id that
// disappears (a rename is a delete and a create), is compared with the
// reference StatefulFile, never taken silently.
//
// CloudFormation user guide, "Update behaviors of stack resources":
// "Replacement: AWS CloudFormation recreates the resource during an update,
// which also generates a new physical ID", and adding or removing such a
// property replaces the resource even when its value does not change; so an
// absent property is recorded as null and compared as such. The registry
// schema's createOnlyProperties (CloudFormation's DescribeType; the copies
// in cfn-lint 1.51.0's cfnlint/data/schemas and in
// hashicorp/terraform-provider-awscc) list these properties; where the
// schema lists fewer than the documentation, the documentation is taken
// too, and where a service refuses a change the schema lets through, the
// service's guide.
type statefulType struct {
	loses      string // what the change does to the data
	properties []fixedProperty
}

// fixedProperty is a property that cannot change in place.
type fixedProperty struct {
	name string
	// key, for a list of objects compared entry by entry (by this field):
	// an entry of the reference that is still there must be unchanged;
	// added entries are free, and removed ones too unless kept.
	key  string
	kept bool // a removed entry is a change too
}

// statefulTypes are the types whose resources hold what a new resource
// would not have. testdata/handlers holds only the handlers' permissions of
// the registry schemas, not their createOnlyProperties; the types and
// properties here come from the sources named for each.
var statefulTypes = map[string]statefulType{
	// The plants. Registry schema: TableName, ImportSourceSpecification.
	// User guide, AWS::DynamoDB::Table: KeySchema and LocalSecondaryIndexes
	// "Update requires: Replacement"; AttributeDefinitions "Replacement if
	// you edit an existing AttributeDefinition" (adding one, for an index,
	// is not).
	"AWS::DynamoDB::Table": {
		loses: "CloudFormation replaces the table: a new, empty table, which the API then serves",
		properties: []fixedProperty{{name: "TableName"}, {name: "ImportSourceSpecification"}, {name: "KeySchema"},
			{name: "LocalSecondaryIndexes"}, {name: "AttributeDefinitions", key: "AttributeName"}},
	},
	// The users. The registry schema lists no createOnlyProperties (nor does
	// the user guide mark any property Replacement), but Amazon Cognito
	// cannot change these on an existing pool (developer guide, "Updating
	// user pool and app client configuration", "Settings you can't change":
	// sign-in options AliasAttributes and UsernameAttributes, case
	// sensitivity UsernameConfiguration, required attributes and custom
	// attributes' removal, Schema; the user guide on Schema: "you can add
	// new schema attributes but you cannot modify or delete an existing
	// schema attribute").
	"AWS::Cognito::UserPool": {
		loses: "Amazon Cognito cannot change it on an existing pool: only a new pool has it, and a new pool has none of the users or app clients",
		properties: []fixedProperty{{name: "AliasAttributes"}, {name: "UsernameAttributes"}, {name: "UsernameConfiguration"},
			{name: "Schema", key: "Name", kept: true}},
	},
	// The credentials every caller holds. Registry schema: GenerateSecret,
	// UserPoolId.
	"AWS::Cognito::UserPoolClient": {
		loses:      "CloudFormation replaces the app client: a new client id and secret, and every caller's credentials stop working",
		properties: []fixedProperty{{name: "UserPoolId"}, {name: "GenerateSecret"}},
	},
	// The log events. Registry schema: LogGroupName.
	"AWS::Logs::LogGroup": {
		loses:      "CloudFormation replaces the log group: the old one, with its log events, is deleted",
		properties: []fixedProperty{{name: "LogGroupName"}},
	},
}

// StatefulReference is StatefulFile: per deployed environment, per logical
// id, the type of each stateful resource and the values, as resolved, of
// the properties it cannot change in place.
type StatefulReference struct {
	About        string                                 `json:"about"`
	Environments map[string]map[string]StatefulResource `json:"environments"`
}

// StatefulResource is one stateful resource of a stack.
type StatefulResource struct {
	Type       string         `json:"type"`
	Properties map[string]any `json:"properties"`
}

const statefulAbout = "Written by " + regenerate + " (tools/preflight/template.go): per samconfig.toml environment, " +
	"each stateful resource's type and the values, as resolved, of the properties it cannot change in place. " +
	"TestTemplateRules fails on a difference; regeneration takes a replacement or a removal only when " + AllowlistFile + " acknowledges it."

// LoadStatefulReference reads StatefulFile.
func LoadStatefulReference(path string) (*StatefulReference, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var ref StatefulReference
	if err := json.Unmarshal(raw, &ref); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return &ref, nil
}

// Marshal is the reference as StatefulFile holds it.
func (ref *StatefulReference) Marshal() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(ref); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// StatefulSnapshot is the stateful resources of a stack, as StatefulFile
// records them.
func StatefulSnapshot(r *samtemplate.Resolved) (map[string]StatefulResource, error) {
	out := map[string]StatefulResource{}
	for typ, st := range statefulTypes {
		for _, id := range r.ResourcesOfType(typ) {
			p, err := r.Properties(id)
			if err != nil {
				return nil, err
			}
			values := map[string]any{}
			for _, fp := range st.properties {
				values[fp.name] = asJSON(p[fp.name])
			}
			out[id] = StatefulResource{Type: typ, Properties: values}
		}
	}
	return out, nil
}

// statefulChange is one difference between the reference and a stack.
type statefulChange struct {
	id       string
	typ      string // the reference's type (the stack's, for a new one)
	kind     string // "vanished", "type", "property", "new"
	property string
	was, now any
	renamed  []string // for a vanished resource: new ones of its type
}

// replaces says whether the change replaces or removes what the reference
// holds (a new resource does not).
func (c statefulChange) replaces() bool { return c.kind != "new" }

// compareStateful lists what differs between a reference environment and
// a stack's snapshot, sorted by logical id.
func compareStateful(want, got map[string]StatefulResource) []statefulChange {
	var out []statefulChange
	var fresh []string
	for id := range got {
		if _, ok := want[id]; !ok {
			fresh = append(fresh, id)
		}
	}
	sort.Strings(fresh)
	ids := make([]string, 0, len(want))
	for id := range want {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		w := want[id]
		g, ok := got[id]
		switch {
		case !ok:
			c := statefulChange{id: id, typ: w.Type, kind: "vanished"}
			for _, f := range fresh {
				if got[f].Type == w.Type {
					c.renamed = append(c.renamed, f)
				}
			}
			out = append(out, c)
			continue
		case g.Type != w.Type:
			out = append(out, statefulChange{id: id, typ: w.Type, kind: "type", was: w.Type, now: g.Type})
			continue
		}
		for _, fp := range statefulTypes[w.Type].properties {
			was, now := asJSON(w.Properties[fp.name]), asJSON(g.Properties[fp.name])
			if changed, a, b := differs(fp, was, now); changed {
				out = append(out, statefulChange{id: id, typ: w.Type, kind: "property", property: fp.name, was: a, now: b})
			}
		}
	}
	for _, id := range fresh {
		out = append(out, statefulChange{id: id, typ: got[id].Type, kind: "new"})
	}
	return out
}

// differs compares a property's values by its rule, and returns the parts
// that differ.
func differs(fp fixedProperty, was, now any) (bool, any, any) {
	if fp.key == "" {
		return !reflect.DeepEqual(was, now), was, now
	}
	byKey := func(v any) map[string]any {
		out := map[string]any{}
		for _, e := range asList(v) {
			if m, ok := e.(map[string]any); ok {
				out[fmt.Sprint(m[fp.key])] = m
			}
		}
		return out
	}
	before, after := byKey(was), byKey(now)
	keys := make([]string, 0, len(before))
	for k := range before {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		a, ok := after[k]
		if !ok && !fp.kept {
			continue
		}
		if !reflect.DeepEqual(before[k], a) {
			return true, before[k], a
		}
	}
	return false, nil, nil
}

// finding tells a change as StatefulFindings does.
func (c statefulChange) finding() Finding {
	ack := fmt.Sprintf("revert, or acknowledge in %s (kind %s, what %s, a reason) and regenerate the reference with %s",
		AllowlistFile, kindReplacement, c.id, regenerate)
	switch c.kind {
	case "vanished":
		renamed := ""
		if len(c.renamed) > 0 {
			renamed = fmt.Sprintf(" (renamed to %s?)", strings.Join(c.renamed, ", "))
		}
		return Finding{Where: c.id, Rule: fmt.Sprintf("the %s is gone from the stack%s: CloudFormation deletes it (or, with DeletionPolicy Retain, leaves it outside the stack), "+
			"and a renamed logical id is a delete and a create: %s", c.typ, renamed, statefulTypes[c.typ].loses), Fix: ack}
	case "type":
		return Finding{Where: c.id, Rule: fmt.Sprintf("changes type from %v to %v: CloudFormation replaces it", c.was, c.now), Fix: ack}
	case "new":
		return Finding{Where: c.id, Rule: fmt.Sprintf("is a %s that %s does not hold: its create-only properties go unwatched", c.typ, StatefulFile),
			Fix: "regenerate the reference with " + regenerate + " (a new resource needs no acknowledgement)"}
	}
	return Finding{Where: c.id, Rule: fmt.Sprintf("%s changes (%s to %s); %s", c.property, oneLineJSON(c.was, 100), oneLineJSON(c.now, 100), statefulTypes[c.typ].loses), Fix: ack}
}

// StatefulFindings: the stateful resources of the environment's stack are
// those of the reference, with the same values of the properties that
// cannot change in place.
func StatefulFindings(r *samtemplate.Resolved, environment string, ref *StatefulReference) []Finding {
	var want map[string]StatefulResource
	ok := false
	if ref != nil {
		want, ok = ref.Environments[environment]
	}
	if !ok {
		return []Finding{{Where: StatefulFile, Rule: fmt.Sprintf("holds no reference for the %s stack", environment), Fix: "regenerate it with " + regenerate}}
	}
	got, err := StatefulSnapshot(r)
	if err != nil {
		return []Finding{{Where: "stateful resources", Rule: "cannot be resolved: " + err.Error()}}
	}
	var out []Finding
	for _, c := range compareStateful(want, got) {
		out = append(out, c.finding())
	}
	return out
}

// RegenerateStateful makes the reference for the current snapshots (by
// environment), refusing, with a finding each, every replacement or removal
// of a resource of the old reference that the allowlist does not
// acknowledge (kind replacement, what its logical id, a reason). New
// resources need no acknowledgement.
func RegenerateStateful(old *StatefulReference, current map[string]map[string]StatefulResource, allow *Allowlist) (*StatefulReference, []Finding) {
	var out []Finding
	envs := make([]string, 0, len(current))
	for e := range current {
		envs = append(envs, e)
	}
	sort.Strings(envs)
	for _, e := range envs {
		var was map[string]StatefulResource
		if old != nil {
			was = old.Environments[e]
		}
		for _, c := range compareStateful(was, current[e]) {
			if !c.replaces() || allow.allows(kindReplacement, c.id) {
				continue
			}
			f := c.finding()
			f.Where = fmt.Sprintf("%s [%s]", f.Where, e)
			f.Fix = fmt.Sprintf("revert, or acknowledge it in %s (kind %s, what %s, a reason) first", AllowlistFile, kindReplacement, c.id)
			out = append(out, f)
		}
	}
	if old != nil {
		for e := range old.Environments {
			if _, ok := current[e]; !ok {
				out = append(out, Finding{Where: StatefulFile, Rule: fmt.Sprintf("holds the %s stack, which no environment makes any more", e),
					Fix: "remove it from the file by hand once that stack is gone"})
			}
		}
	}
	if len(out) > 0 {
		return nil, out
	}
	return &StatefulReference{About: statefulAbout, Environments: current}, nil
}

// The kinds of allowlist entries.
const (
	kindPublicRoute = "public-route" // what: "METHOD /path", a route served without the authorizer
	kindReplacement = "replacement"  // what: a stateful resource's logical id, whose replacement or removal is meant
	kindReach       = "reach"        // what: "<variant> <role or boundary> <service>", a reach outside the stacks that cannot be scoped (access.go)
)

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

// allows says whether an entry with a reason allows what. An entry without
// one allows nothing.
func (a *Allowlist) allows(kind, what string) bool {
	if a == nil {
		return false
	}
	for _, e := range a.Entries {
		if e.Kind == kind && e.What == what && strings.TrimSpace(e.Reason) != "" {
			return true
		}
	}
	return false
}

var routeName = regexp.MustCompile(`^(GET|PUT|POST|DELETE|OPTIONS|HEAD|PATCH|ANY) /\S*$`)

// AllowlistFindings: each entry has a known kind, a what and a reason, and
// names something of some variant: a route (that lacks the authorizer
// somewhere, or the entry allows nothing and would let the route lose it
// unseen), or a stateful resource of a stack or of the reference.
func AllowlistFindings(a *Allowlist, envs []env, ref *StatefulReference) []Finding {
	if a == nil {
		return nil
	}
	routes := map[string]bool{} // route name -> some variant serves it without the authorizer
	stateful := map[string]bool{}
	for _, e := range envs {
		apis, _ := restAPIsOf(e.app)
		for _, api := range apis {
			for _, rt := range api.routes {
				routes[rt.name()] = routes[rt.name()] || !rt.authorized
			}
		}
		if snap, err := StatefulSnapshot(e.app); err == nil {
			for id := range snap {
				stateful[id] = true
			}
		}
	}
	if ref != nil {
		for _, resources := range ref.Environments {
			for id := range resources {
				stateful[id] = true
			}
		}
	}
	var out []Finding
	seen := map[AllowEntry]bool{}
	for i, e := range a.Entries {
		where := fmt.Sprintf("%s entry %d (%s %q)", AllowlistFile, i+1, e.Kind, e.What)
		add := func(rule, fix string) { out = append(out, Finding{Where: where, Rule: rule, Fix: fix}) }
		if strings.TrimSpace(e.Reason) == "" {
			add("has no reason: an exception nobody explained allows nothing", "say in reason why the exception is meant, or remove the entry")
		}
		if k := (AllowEntry{e.Kind, e.What, ""}); seen[k] {
			add("repeats an earlier entry", "remove it")
		} else {
			seen[k] = true
		}
		switch e.Kind {
		case kindPublicRoute:
			public, ok := routes[e.What]
			switch {
			case !routeName.MatchString(e.What):
				add(`names no route: what is "METHOD /path", as the template declares it`, "write the route as METHOD /path")
			case !ok:
				add("is stale: no variant of the template has this route", "remove the entry")
			case !public:
				add("is stale: the route has the authorizer in every variant, so the entry allows nothing now and would let it lose the authorizer unseen", "remove the entry")
			}
		case kindReplacement:
			if !stateful[e.What] {
				add("is stale: no stateful resource of the template or of the reference has this logical id", "remove the entry")
			}
		case kindReach, kindExternalAccess, kindFinding:
			// effectiveAccess and resourceAccess tell an entry that acknowledges nothing.
		default:
			add(fmt.Sprintf("has kind %q: the kinds are %s, %s, %s, %s and %s", e.Kind, kindPublicRoute, kindReplacement, kindReach, kindExternalAccess, kindFinding), "fix the kind")
		}
	}
	return out
}

// asJSON is v as encoding/json reads it back, so that resolved values and
// the reference's compare alike (numbers as float64, nil as null).
func asJSON(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
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
