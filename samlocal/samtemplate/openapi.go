package samtemplate

import (
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

// An API's OpenAPI (Swagger) document: its routes, authorizers, binary
// media types and (HTTP APIs) CORS, as SAM CLI reads them
// (samcli/commands/local/lib/swagger/parser.py SwaggerParser, reader.py
// SwaggerReader, integration_uri.py LambdaUri), with JWT authorizers and
// x-amazon-apigateway-cors beyond it.

// definition reads the document of an API from its inline body (with an
// AWS::Include transform of a local file) or a local file its URI names
// (RDR SwaggerReader.read: the body first, then the URI, both relative to
// the template's folder). S3 locations are said at start.
func (c *collector) definition(a *API, body, uri any, bodyName, uriName string) error {
	doc, where, err := c.document(a, body, uri, bodyName, uriName)
	if err != nil || doc == nil {
		return err
	}
	doc, _ = c.t.loose(doc).(map[string]any)
	return c.openAPI(a, doc, where)
}

func (c *collector) document(a *API, body, uri any, bodyName, uriName string) (map[string]any, string, error) {
	if m, ok := body.(map[string]any); ok {
		tr, _ := m["Fn::Transform"].(map[string]any)
		if tr == nil {
			return m, bodyName, nil
		}
		// parse_aws_include_transform in reader.py.
		params, _ := tr["Parameters"].(map[string]any)
		loc, _ := params["Location"].(string)
		if tr["Name"] != "AWS::Include" || loc == "" {
			c.note("%s: %s is a transform samlocal does not read (only AWS::Include of a local file); its routes are not served", a.ID, bodyName)
			return nil, "", nil
		}
		uri = loc
	}
	switch x := uri.(type) {
	case nil:
		return nil, "", nil
	case string:
		if strings.HasPrefix(x, "s3://") {
			c.note("%s: %s %s is in S3 and not served (samlocal reads local files); its routes are not served", a.ID, uriName, x)
			return nil, "", nil
		}
		raw, err := os.ReadFile(c.t.path(x))
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s: %w", a.ID, uriName, err)
		}
		var n yaml.Node
		if err := yaml.Unmarshal(raw, &n); err != nil || len(n.Content) == 0 {
			return nil, "", fmt.Errorf("%s: %s: %s is not YAML or JSON: %v", a.ID, uriName, x, err)
		}
		v, err := convert(n.Content[0])
		if err != nil {
			return nil, "", fmt.Errorf("%s: %s: %w", a.ID, uriName, err)
		}
		doc, ok := v.(map[string]any)
		if !ok {
			return nil, "", fmt.Errorf("%s: %s: %s is not an OpenAPI document", a.ID, uriName, x)
		}
		return doc, x, nil
	case map[string]any:
		c.note("%s: %s in S3 is not served (samlocal reads local files); its routes are not served", a.ID, uriName)
	}
	return nil, "", nil
}

// openAPI reads the document's routes, authorizers, binary media types and
// CORS into a.
func (c *collector) openAPI(a *API, doc map[string]any, where string) error {
	version := fmt.Sprint(cmpOr(doc["swagger"], doc["openapi"], ""))
	var schemes map[string]any
	switch {
	case strings.HasPrefix(version, "2"):
		schemes, _ = doc["securityDefinitions"].(map[string]any)
	case strings.HasPrefix(version, "3"):
		components, _ := doc["components"].(map[string]any)
		schemes, _ = components["securitySchemes"].(map[string]any)
	default:
		return fmt.Errorf("%s: %s: An invalid OpenApi version was detected: '%s', must be one of 2.x or 3.x", a.ID, where, version)
	}
	for _, name := range slices.Sorted(maps.Keys(schemes)) {
		props, _ := schemes[name].(map[string]any)
		az, err := c.openAPIAuthorizer(a, name, props)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", a.ID, where, err)
		}
		if az != nil {
			a.Authorizers[name] = az
		}
	}
	if sec, ok := doc["security"].([]any); ok && len(sec) > 0 {
		name, _, err := securityName(sec)
		if err != nil {
			return fmt.Errorf("%s: %s: %w", a.ID, where, err)
		}
		if az := a.Authorizers[name]; az != nil {
			a.Authorizer = az
		} else if name != "" {
			c.note("%s: the document's default authorizer %q is not served; its routes run without one", a.ID, name)
		}
	}
	if !a.HTTP {
		a.BinaryMediaTypes = append(a.BinaryMediaTypes, binaryTypes(doc["x-amazon-apigateway-binary-media-types"])...)
	} else if m, ok := doc["x-amazon-apigateway-cors"].(map[string]any); ok && a.Cors == nil {
		cors, err := openAPICors(m, c, a.ID)
		if err != nil {
			return err
		}
		a.Cors = cors
	}
	paths, _ := doc["paths"].(map[string]any)
	for _, path := range slices.Sorted(maps.Keys(paths)) {
		ops, _ := paths[path].(map[string]any)
		for _, key := range slices.Sorted(maps.Keys(ops)) {
			op, _ := ops[key].(map[string]any)
			if err := c.openAPIRoute(a, path, key, op, where); err != nil {
				return err
			}
		}
	}
	return nil
}

// openAPIRoute reads one operation (SWP get_routes): an aws_proxy
// integration whose uri names a function. An operation without an
// integration is left to the events (the SAM translator adds theirs); one
// of another type is said at start.
func (c *collector) openAPIRoute(a *API, path, key string, op map[string]any, where string) error {
	method := strings.ToUpper(key)
	if method == "X-AMAZON-APIGATEWAY-ANY-METHOD" {
		method = "ANY"
	}
	if method != "ANY" && !slices.Contains(anyMethods, method) {
		return nil // parameters, summary ...
	}
	in, ok := op["x-amazon-apigateway-integration"].(map[string]any)
	if !ok {
		return nil
	}
	if typ, _ := in["type"].(string); !strings.EqualFold(typ, "aws_proxy") {
		c.note("%s: %s %s (%s): integration type %q is not served (only Lambda proxy integrations are)", a.ID, method, path, where, typ)
		return nil
	}
	if path == "/$default" || path == DefaultRoute {
		path = DefaultRoute
	}
	r := Route{Method: method, Path: path, Source: where, PayloadVersion: "1.0"}
	if a.HTTP {
		r.PayloadVersion = "2.0"
		if v, ok := in["payloadFormatVersion"]; ok {
			r.PayloadVersion = stringify(v)
		}
	}
	if id, ok := op["operationId"].(string); ok && !a.HTTP {
		r.OperationName = id
	}
	name := functionNameOf(in["uri"])
	if name == "" {
		r.Unserved = fmt.Sprintf("its integration uri names no function (%v)", in["uri"])
	} else {
		r.Function, r.Unserved = c.function(name)
	}
	if sec, ok := op["security"].([]any); ok {
		name, scopes, err := securityName(sec)
		if err != nil {
			return fmt.Errorf("%s: %s %s: %w", a.ID, method, path, err)
		}
		r.authName, r.Scopes, r.noAuth = name, scopes, name == ""
	}
	c.addRoute(a, r)
	return nil
}

// securityName reads a security requirement list: its one authorizer and
// scopes, or "" for none ([] or [{}]).
func securityName(sec []any) (string, []string, error) {
	if len(sec) > 1 {
		return "", nil, fmt.Errorf("there must only be a single authorizer defined for a single route, found '%d'", len(sec))
	}
	if len(sec) == 0 {
		return "", nil, nil
	}
	m, _ := sec[0].(map[string]any)
	if len(m) > 1 {
		return "", nil, fmt.Errorf("there must only be a single authorizer defined for a single route, found '%d'", len(m))
	}
	for name, scopes := range m {
		return name, strs(scopes), nil
	}
	return "", nil, nil
}

// identitySourceRules are SAM CLI's identity source syntax
// (samcli/commands/local/lib/validators/identity_source_validator.py).
var identitySourceRules = map[bool]*regexp.Regexp{
	false: regexp.MustCompile(`^(method\.request\.querystring|method\.request\.header|context|stageVariables)\.[a-zA-Z0-9._-]+$`),
	true:  regexp.MustCompile(`^\$(request\.querystring|request\.header|context|stageVariables)\.[a-zA-Z0-9._-]+$`),
}

// openAPIAuthorizer reads a security scheme's x-amazon-apigateway-authorizer
// (SWP get_authorizers, _get_lambda_identity_sources), with SAM CLI's
// messages; nil when it is skipped.
func (c *collector) openAPIAuthorizer(a *API, name string, props map[string]any) (*Authorizer, error) {
	ext, ok := props["x-amazon-apigateway-authorizer"].(map[string]any)
	if !ok {
		if props["x-amazon-apigateway-authtype"] == "awsSigv4" {
			c.note("%s: authorizer %s (AWS_IAM) is not served (no SigV4 check); the routes it guards run without it", a.ID, name)
		} else {
			c.note("%s: Skip parsing unsupported authorizer '%s' (the routes it guards run without it)", a.ID, name)
		}
		return nil, nil
	}
	typ, _ := ext["type"].(string)
	typ = strings.ToLower(typ)
	if typ == "jwt" && a.HTTP {
		az := &Authorizer{Name: name, Type: "JWT"}
		cfg, _ := ext["jwtConfiguration"].(map[string]any)
		az.Issuer, _ = cfg["issuer"].(string)
		az.Audience = strs(cfg["audience"])
		for _, s := range strs(ext["identitySource"]) {
			for _, p := range strings.Split(s, ",") {
				az.IdentitySources = append(az.IdentitySources, strings.TrimSpace(p))
			}
		}
		if az.Issuer == "" || len(az.IdentitySources) == 0 {
			return nil, fmt.Errorf("JWT authorizer '%s' needs jwtConfiguration.issuer and identitySource", name)
		}
		return az, nil
	}
	pv := "1.0"
	if a.HTTP {
		pv, _ = ext["authorizerPayloadFormatVersion"].(string)
		if pv != "1.0" && pv != "2.0" {
			return nil, fmt.Errorf("Authorizer '%s' contains an invalid payload version", name)
		}
	}
	fn := functionNameOf(ext["authorizerUri"])
	if fn == "" {
		c.note("%s: Unable to parse authorizerUri for authorizer '%s', skipping (the routes it guards run without it)", a.ID, name)
		return nil, nil
	}
	if typ != "token" && typ != "request" {
		c.note("%s: Lambda authorizer '%s' type '%s' is unsupported, skipping (the routes it guards run without it)", a.ID, name, typ)
		return nil, nil
	}
	az := &Authorizer{Name: name, Type: strings.ToUpper(typ), PayloadVersion: pv, TTL: 300}
	if a.HTTP {
		az.TTL = 0
	}
	if v, ok := ext["authorizerResultTtlInSeconds"]; ok {
		n, err := c.t.Number(v)
		if err != nil {
			return nil, fmt.Errorf("authorizer '%s': authorizerResultTtlInSeconds: %w", name, err)
		}
		az.TTL = int(n)
	}
	if az.Function, az.Unserved = c.function(fn); az.Unserved != "" {
		c.note("%s: authorizer %s is not served: %s; the routes it guards answer 500 (AUTHORIZER_FAILURE)", a.ID, name, az.Unserved)
	}
	if typ == "token" {
		header, _ := props["name"].(string)
		switch {
		case props["in"] != "header" || header == "":
			c.note("%s: Missing properties for Lambda Authorizer '%s', property 'in' must be set to 'header' and property 'name' must be provided; skipping (the routes it guards run without it)", a.ID, name)
			return nil, nil
		case a.HTTP:
			c.note("%s: Type 'token' for Lambda Authorizer '%s' is unsupported on an HTTP API; skipping (the routes it guards run without it)", a.ID, name)
			return nil, nil
		}
		az.Header = header
		az.IdentitySources = []string{"method.request.header." + header}
		az.ValidationExpression, _ = ext["identityValidationExpression"].(string)
		return az, nil
	}
	for _, s := range strs(ext["identitySource"]) {
		for _, p := range strings.Split(s, ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			if !identitySourceRules[a.HTTP].MatchString(p) {
				return nil, fmt.Errorf("identity source '%s' for Lambda Authorizer '%s' is not a valid identity source, check the spelling/format", p, name)
			}
			az.IdentitySources = append(az.IdentitySources, p)
		}
	}
	if v, ok := ext["identityValidationExpression"].(string); ok && v != "" && a.HTTP {
		c.note("%s: Validation expressions is only available on REST APIs, ignoring for Lambda authorizer '%s'", a.ID, name)
	}
	simple, present := ext["enableSimpleResponses"]
	if b, isBool := simple.(bool); a.HTTP && pv == "2.0" && isBool {
		az.SimpleResponses = b
	} else if present {
		c.note("%s: Simple responses are only available on HTTP APIs with payload version 2.0, ignoring for Lambda authorizer '%s'", a.ID, name)
	}
	return az, nil
}

// Function names in integration URIs (LambdaUri in integration_uri.py).
var (
	subFunctionARN = regexp.MustCompile(`\$\{([A-Za-z0-9]+)\.(Arn|Alias)\}`)
	functionARN    = regexp.MustCompile(`arn:aws:lambda:[^:]+:[^:]+:function:[^:/]+(?::[^/]+)?`)
	functionsPath  = regexp.MustCompile(`/functions/([^/]+)/invocations`)
	functionName   = regexp.MustCompile(`.*:function:([^:]*)`)
	validName      = regexp.MustCompile(`^[a-zA-Z0-9_-]+`)
)

// functionNameOf reads the function an integration or authorizer URI names
// (LambdaUri.get_function_name): a string, or an Fn::Sub (its string, or
// the first element of its list form) whose ${Fn.Arn} or ${Fn.Alias} is
// Fn's ARN; then the function ARN in it, or what /functions/…/invocations
// holds; then the name after ":function:", without an alias. A stage
// variable for a name gives "".
func functionNameOf(uri any) string {
	s, _ := uri.(string)
	if m, ok := uri.(map[string]any); ok {
		switch sub := m["Fn::Sub"].(type) {
		case string:
			s = sub
		case []any:
			if len(sub) > 0 {
				s, _ = sub[0].(string)
			}
		}
	}
	if s == "" {
		return ""
	}
	s = subFunctionARN.ReplaceAllString(s, "arn:aws:lambda:${AWS::Region}:123456789012:function:$1")
	arn := functionARN.FindString(s)
	if arn == "" {
		m := functionsPath.FindStringSubmatch(s)
		if m == nil {
			return ""
		}
		arn = m[1]
	}
	m := functionName.FindStringSubmatch(arn)
	if m == nil {
		return ""
	}
	name := m[1]
	if strings.HasPrefix(name, "${stageVariables.") {
		return ""
	}
	return validName.FindString(name)
}

// cmpOr is the first of vs that is not nil.
func cmpOr(vs ...any) any {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
