package samtemplate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The SAM resources' APIs: AWS::Serverless::Api, AWS::Serverless::HttpApi,
// the implicit ServerlessRestApi and ServerlessHttpApi, and the Api and
// HttpApi events of AWS::Serverless::Function
// (samcli/lib/providers/sam_api_provider.py).

// functionEvents reads a function's Api and HttpApi events, in the order of
// their names (SAM CLI takes the template's order of a function's events;
// the parsed template keeps no order inside a resource, and two events of
// one function rarely declare one route).
func (c *collector) functionEvents(fn string) error {
	events, _ := c.t.Properties(fn)["Events"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(events)) {
		ev, _ := events[name].(map[string]any)
		typ, _ := ev["Type"].(string)
		if typ != "Api" && typ != "HttpApi" {
			continue
		}
		props, _ := c.t.loose(ev["Properties"]).(map[string]any)
		if err := c.eventRoute(fn, name, typ, props); err != nil {
			return err
		}
	}
	return nil
}

// eventRoute adds the route of an Api or HttpApi event (SAMP
// _convert_event_route).
func (c *collector) eventRoute(fn, event, typ string, props map[string]any) error {
	http := typ == "HttpApi"
	key, implicit := "RestApiId", ImplicitRestAPI
	if http {
		key, implicit = "ApiId", ImplicitHTTPAPI
	}
	apiID := implicit
	switch v := props[key].(type) {
	case nil:
	case string:
		apiID = v
	default:
		if apiID = RefTo(v); apiID == "" {
			return fmt.Errorf("%s property of resource with logicalId '%s' is invalid. It should either be a LogicalId string or a Ref of a Logical Id string", key, fn)
		}
	}
	if apiID != implicit && c.t.apiKind(apiID) == "" {
		c.note("%s: %s event %s names %s %s, which is not an API of the template; the event is not served", fn, typ, event, key, apiID)
		return nil
	}
	path, _ := props["Path"].(string)
	method, _ := props["Method"].(string)
	if http && path == "" && method == "" {
		// implicit_http_api_plugin.py _process_api_events: an HttpApi event
		// with neither is the $default route.
		path, method = DefaultRoute, "ANY"
	}
	method = strings.ToUpper(method)
	if method == "X-AMAZON-APIGATEWAY-ANY-METHOD" {
		method = "ANY"
	}
	if path == "" || method == "" {
		c.note("%s: %s event %s has no Path or Method; it is not served", fn, typ, event)
		return nil
	}
	r := Route{Method: method, Path: path, Source: fmt.Sprintf("%s event %s", fn, event), PayloadVersion: "1.0"}
	if http {
		r.PayloadVersion = "2.0"
		if v, ok := props["PayloadFormatVersion"].(string); ok {
			r.PayloadVersion = v
		}
	}
	r.Function, r.Unserved = c.function(fn)
	if auth, ok := props["Auth"].(map[string]any); ok {
		r.authName, _ = auth["Authorizer"].(string)
		if r.authName == "NONE" {
			r.authName, r.noAuth = "", true
		}
		r.Scopes = strs(auth["AuthorizationScopes"])
		if v, _ := auth["ApiKeyRequired"].(bool); v {
			c.note("%s: %s event %s: ApiKeyRequired is not served (no API key is checked)", fn, typ, event)
		}
	}
	c.addRoute(c.api(apiID, http), r)
	return nil
}

// addRoute adds r to a, saying at start a route no Go function serves.
func (c *collector) addRoute(a *API, r Route) {
	if r.Unserved != "" {
		c.note("%s: %s %s (%s) is not served: %s; it answers 502", a.ID, r.Method, r.Path, r.Source, r.Unserved)
	}
	if r.PayloadVersion != "1.0" && r.PayloadVersion != "2.0" {
		c.note("%s: %s %s (%s): PayloadFormatVersion %q is neither 1.0 nor 2.0; it answers 502, as under SAM CLI", a.ID, r.Method, r.Path, r.Source, r.PayloadVersion)
	}
	a.Routes = append(a.Routes, r)
}

// serverlessAPI reads an AWS::Serverless::Api or AWS::Serverless::HttpApi,
// with Globals.Api or Globals.HttpApi merged in (the SAM translator's
// GlobalsPlugin).
func (c *collector) serverlessAPI(id string, http bool) error {
	props, _ := c.t.Map("Resources", id)["Properties"].(map[string]any)
	return c.serverlessAPIProps(c.api(id, http), props)
}

func (c *collector) serverlessAPIProps(a *API, props map[string]any) error {
	c.read[a.ID] = true
	global := "Api"
	if a.HTTP {
		global = "HttpApi"
	}
	if merged, ok := mergeGlobals(c.t.Map("Globals", global), props).(map[string]any); ok {
		props = merged
	}
	// An authorizer's FunctionArn is read as written (functionOf); the
	// rest resolved as under sam local.
	rawAuth, _ := props["Auth"].(map[string]any)
	props, _ = c.t.loose(props).(map[string]any)
	id := a.ID
	a.Stage, _ = props["StageName"].(string)
	if id == ImplicitRestAPI {
		a.Stage = "Prod" // ImplicitApiResource in implicit_rest_api_plugin.py
	}
	if a.HTTP {
		// SAMP _extract_from_serverless_http reads StageVariables.
		a.Variables = stringMap(props["StageVariables"])
		cors, err := httpCors(props["CorsConfiguration"], c, id)
		if err != nil {
			return err
		}
		a.Cors = cors
		if rs, ok := props["DefaultRouteSettings"].(map[string]any); ok {
			if err := c.throttle(a, rs); err != nil {
				return err
			}
		}
	} else {
		a.Variables = stringMap(props["Variables"])
		cors, err := restCors(props["Cors"], c, id)
		if err != nil {
			return err
		}
		a.Cors = cors
		a.BinaryMediaTypes = append(a.BinaryMediaTypes, binaryTypes(props["BinaryMediaTypes"])...)
		for _, m := range asMaps(props["MethodSettings"]) {
			if m["ResourcePath"] == "/*" && m["HttpMethod"] == "*" {
				if err := c.throttle(a, m); err != nil {
					return err
				}
			}
		}
		if err := c.gatewayResponses(a, props["GatewayResponses"]); err != nil {
			return err
		}
		if props["ResourcePolicy"] != nil {
			c.note("%s: ResourcePolicy is not served (no resource policy is evaluated)", id)
		}
	}
	if err := c.definition(a, props["DefinitionBody"], props["DefinitionUri"], "DefinitionBody", "DefinitionUri"); err != nil {
		return err
	}
	if err := c.serverlessAuthorizers(a, rawAuth); err != nil {
		return err
	}
	if v, _ := rawAuth["ApiKeyRequired"].(bool); v {
		c.note("%s: Auth.ApiKeyRequired is not served (no API key is checked)", id)
	}
	return nil
}

// throttle reads a stage's ThrottlingRateLimit and ThrottlingBurstLimit.
func (c *collector) throttle(a *API, m map[string]any) error {
	var err error
	if v, ok := m["ThrottlingRateLimit"]; ok {
		if a.RateLimit, err = c.t.Number(v); err != nil {
			return fmt.Errorf("%s: ThrottlingRateLimit: %w", a.ID, err)
		}
	}
	if v, ok := m["ThrottlingBurstLimit"]; ok {
		if a.BurstLimit, err = c.t.Number(v); err != nil {
			return fmt.Errorf("%s: ThrottlingBurstLimit: %w", a.ID, err)
		}
	}
	return nil
}

// gatewayResponses reads a REST API's GatewayResponses.
func (c *collector) gatewayResponses(a *API, v any) error {
	grs, _ := v.(map[string]any)
	for typ, v := range grs {
		m, _ := v.(map[string]any)
		gr := GatewayResponse{Headers: map[string]string{}}
		if v, ok := m["StatusCode"]; ok {
			n, err := c.t.Number(v)
			if err != nil {
				return fmt.Errorf("%s: gateway response %s: StatusCode: %w", a.ID, typ, err)
			}
			gr.StatusCode = int(n)
		}
		if params, ok := m["ResponseParameters"].(map[string]any); ok {
			hdrs, _ := params["Headers"].(map[string]any)
			for k, v := range hdrs {
				gr.Headers[k] = unquoteValue(stringify(v))
			}
		}
		if tmpl, ok := m["ResponseTemplates"].(map[string]any); ok {
			gr.Body = stringify(tmpl["application/json"])
		}
		a.Responses[typ] = gr
	}
	return nil
}

// unquoteValue strips the single quotes of an API Gateway static value
// ("'Bearer'").
func unquoteValue(s string) string {
	return strings.TrimSuffix(strings.TrimPrefix(s, "'"), "'")
}

// serverlessAuthorizers reads Auth.Authorizers and Auth.DefaultAuthorizer
// (SAMP _extract_authorizers_from_props): Lambda authorizers (TOKEN and
// REQUEST on a REST API, REQUEST with payload 1.0 or 2.0 on an HTTP API)
// and, beyond SAM CLI, an HTTP API's JWT authorizers. Cognito user pools
// and IAM are said at start, and the routes they guard run without them,
// as under SAM CLI.
func (c *collector) serverlessAuthorizers(a *API, auth map[string]any) error {
	authorizers, _ := auth["Authorizers"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(authorizers)) {
		props, _ := authorizers[name].(map[string]any)
		switch {
		case props["JwtConfiguration"] != nil && a.HTTP:
			resolved, _ := c.t.loose(props).(map[string]any)
			az, err := jwtAuthorizer(name, resolved)
			if err != nil {
				return fmt.Errorf("%s: %w", a.ID, err)
			}
			a.Authorizers[name] = az
		case props["FunctionArn"] != nil:
			az, err := c.lambdaAuthorizer(a, name, props)
			if err != nil {
				return err
			}
			if az != nil {
				a.Authorizers[name] = az
			}
		case props["UserPoolArn"] != nil:
			c.note("%s: authorizer %s (a Cognito user pool) is not served; the routes it guards run without it", a.ID, name)
		default:
			c.note("%s: authorizer %s is not served (neither a Lambda nor a JWT authorizer); the routes it guards run without it", a.ID, name)
		}
	}
	def, _ := auth["DefaultAuthorizer"].(string)
	if v, _ := auth["EnableIamAuthorizer"].(bool); v && def == "" {
		def = "AWS_IAM"
	}
	switch {
	case def == "" || def == "NONE":
	case def == "AWS_IAM":
		c.note("%s: the AWS_IAM default authorizer is not served (no SigV4 check); its routes run without one", a.ID)
	case a.Authorizers[def] != nil:
		a.Authorizer = a.Authorizers[def]
	case authorizers[def] == nil:
		return fmt.Errorf("%s: DefaultAuthorizer %s is not among Auth.Authorizers", a.ID, def)
	}
	return nil
}

// lambdaAuthorizer reads a SAM Lambda authorizer (SAMP
// _extract_token_lambda_authorizer, _extract_request_lambda_authorizer),
// with SAM CLI's checks and messages; nil when it is skipped, as SAM CLI
// skips it.
func (c *collector) lambdaAuthorizer(a *API, name string, props map[string]any) (*Authorizer, error) {
	fn, err := c.t.functionOf(props["FunctionArn"])
	if err != nil {
		if _, ok := props["FunctionArn"].(string); ok {
			// An ARN string: SAM CLI reads a function name out of it
			// (LambdaUri) and skips an authorizer whose name it cannot.
			if fn = c.byName[functionNameOf(props["FunctionArn"])]; fn == "" {
				c.note("%s: Unable to parse the Lambda ARN for Authorizer '%s', skipping (the routes it guards run without it)", a.ID, name)
				return nil, nil
			}
		} else {
			return nil, fmt.Errorf("%s: authorizer %s: %w", a.ID, name, err)
		}
	}
	az := &Authorizer{Name: name, PayloadVersion: "1.0"}
	if az.Function, az.Unserved = c.function(fn); az.Unserved != "" {
		c.note("%s: authorizer %s is not served: %s; the routes it guards answer 500 (AUTHORIZER_FAILURE)", a.ID, name, az.Unserved)
	}
	identity, _ := c.t.loose(props["Identity"]).(map[string]any)
	ttl := 300 // API Gateway's default authorizerResultTtlInSeconds for a REST API
	if a.HTTP {
		ttl = 0 // HTTP APIs cache only when told (AuthorizerResultTtlInSeconds)
	}
	if v, ok := identity["ReauthorizeEvery"]; ok {
		n, err := c.t.Number(v)
		if err != nil {
			return nil, fmt.Errorf("%s: authorizer %s: ReauthorizeEvery: %w", a.ID, name, err)
		}
		ttl = int(n)
	}
	az.TTL = ttl
	typ, _ := props["FunctionPayloadType"].(string)
	if typ == "" {
		typ = "TOKEN"
	}
	typ = strings.ToUpper(typ)
	if !a.HTTP && typ == "TOKEN" {
		az.Type, az.Header = "TOKEN", "Authorization"
		if h, ok := identity["Header"].(string); ok {
			az.Header = h
		}
		az.IdentitySources = []string{"method.request.header." + az.Header}
		az.ValidationExpression, _ = identity["ValidationExpression"].(string)
		return az, nil
	}
	if !a.HTTP && typ != "REQUEST" {
		c.note("%s: authorizer %s: FunctionPayloadType %q is not served (TOKEN or REQUEST); the routes it guards run without it", a.ID, name, typ)
		return nil, nil
	}
	az.Type = "REQUEST"
	if a.HTTP {
		v, present := props["AuthorizerPayloadFormatVersion"]
		pv, isString := v.(string)
		switch {
		case present && !isString:
			return nil, fmt.Errorf("%s: 'AuthorizerPayloadFormatVersion' must be of type string for Lambda Authorizer '%s'", a.ID, name)
		case pv != "1.0" && pv != "2.0":
			return nil, fmt.Errorf("%s: Lambda Authorizer '%s' must contain a valid 'AuthorizerPayloadFormatVersion' for HTTP APIs", a.ID, name)
		}
		az.PayloadVersion = pv
		az.SimpleResponses, _ = props["EnableSimpleResponses"].(bool)
		if az.SimpleResponses && pv == "1.0" {
			return nil, fmt.Errorf("%s: EnableSimpleResponses must be used with the 2.0 payload format version in Lambda Authorizer '%s'", a.ID, name)
		}
	}
	// The identity sources in the order the SAM translator writes them
	// into the deployed API (samtranslator/model/apigateway.py and
	// apigatewayv2.py _get_identity_source: headers, query strings, stage
	// variables, context), which is the order of an HTTP API event's
	// identitySource (SAM CLI puts query strings first).
	p, q := "method.", ""
	if a.HTTP {
		p, q = "$", "$"
	}
	for _, k := range []struct{ prop, prefix string }{
		{"Headers", p + "request.header."}, {"QueryStrings", p + "request.querystring."},
		{"StageVariables", q + "stageVariables."}, {"Context", q + "context."},
	} {
		for _, s := range strs(identity[k.prop]) {
			az.IdentitySources = append(az.IdentitySources, k.prefix+s)
		}
	}
	return az, nil
}

// jwtAuthorizer reads an HTTP API's OAuth2/JWT authorizer: JwtConfiguration
// (issuer, audience; SAM reads the keys in either case,
// samtranslator/model/apigatewayv2.py _get_jwt_configuration) and
// IdentitySource.
func jwtAuthorizer(name string, props map[string]any) (*Authorizer, error) {
	cfg, _ := props["JwtConfiguration"].(map[string]any)
	az := &Authorizer{Name: name, Type: "JWT"}
	for k, v := range cfg {
		switch strings.ToLower(k) {
		case "issuer":
			az.Issuer, _ = v.(string)
		case "audience":
			az.Audience = strs(v)
		}
	}
	if az.Issuer == "" {
		return nil, fmt.Errorf("JWT authorizer %s has no JwtConfiguration.issuer", name)
	}
	src, _ := props["IdentitySource"].(string)
	if src == "" {
		src = "$request.header.Authorization"
	}
	az.IdentitySources = []string{src}
	return az, nil
}

// binaryTypes reads BinaryMediaTypes, "~1" read as "/" and what is not a
// string left out (COL add_binary_media_types).
func binaryTypes(v any) []string {
	var out []string
	for _, s := range strs(v) {
		out = append(out, strings.ReplaceAll(s, "~1", "/"))
	}
	return out
}
