package samtemplate

import (
	"fmt"
	"slices"
	"strings"
)

// The CloudFormation resources' APIs: AWS::ApiGateway::* (REST) and
// AWS::ApiGatewayV2::* (HTTP), as SAM CLI reads them
// (samcli/lib/providers/cfn_api_provider.py CfnApiProvider), with what it
// leaves out beyond it: an AWS::ApiGateway::Deployment's StageName, an
// AWS::ApiGateway::GatewayResponse, an AWS::ApiGatewayV2::Stage's
// StageVariables (SAM CLI reads a Variables property that CloudFormation
// does not have) and the CorsConfiguration of an AWS::ApiGatewayV2::Api
// with a Body (which SAM CLI ignores).

func (c *collector) cloudFormation(id, typ string) error {
	raw, _ := c.t.Map("Resources", id)["Properties"].(map[string]any)
	props, _ := c.t.loose(raw).(map[string]any)
	switch typ {
	case "AWS::ApiGateway::RestApi":
		a := c.api(id, false)
		c.read[id] = true
		a.BinaryMediaTypes = append(a.BinaryMediaTypes, binaryTypes(props["BinaryMediaTypes"])...)
		return c.definition(a, props["Body"], props["BodyS3Location"], "Body", "BodyS3Location")
	case "AWS::ApiGateway::Stage", "AWS::ApiGateway::Deployment":
		api, err := c.cfnAPI(id, raw["RestApiId"], "RestApiId", "REST")
		if err != nil || api == "" {
			return err
		}
		a := c.api(api, false)
		name, _ := props["StageName"].(string)
		if typ == "AWS::ApiGateway::Deployment" {
			// A deployment with a StageName makes that stage; SAM CLI
			// reads only AWS::ApiGateway::Stage (its events then name
			// the stage None).
			if !c.cfnStage[api] && name != "" {
				a.Stage = name
			}
			return nil
		}
		c.cfnStage[api] = true
		a.Stage = name
		a.Variables = stringMap(props["Variables"])
		for _, m := range asMaps(props["MethodSettings"]) {
			if m["ResourcePath"] == "/*" && m["HttpMethod"] == "*" {
				if err := c.throttle(a, m); err != nil {
					return err
				}
			}
		}
	case "AWS::ApiGateway::Method":
		return c.cfnMethod(id, raw, props)
	case "AWS::ApiGateway::Authorizer":
		return c.cfnAuthorizer(id, raw, props, false)
	case "AWS::ApiGateway::GatewayResponse":
		api, err := c.cfnAPI(id, raw["RestApiId"], "RestApiId", "REST")
		if err != nil || api == "" {
			return err
		}
		typ, _ := props["ResponseType"].(string)
		gr := map[string]any{"StatusCode": props["StatusCode"], "ResponseTemplates": props["ResponseTemplates"]}
		hdrs := map[string]any{}
		params, _ := props["ResponseParameters"].(map[string]any)
		for k, v := range params {
			if h, ok := strings.CutPrefix(k, "gatewayresponse.header."); ok {
				hdrs[h] = v
			}
		}
		gr["ResponseParameters"] = map[string]any{"Headers": hdrs}
		if gr["StatusCode"] == nil {
			delete(gr, "StatusCode")
		}
		return c.gatewayResponses(c.api(api, false), map[string]any{typ: gr})
	case "AWS::ApiGatewayV2::Api":
		return c.cfnHTTPAPI(id, props)
	case "AWS::ApiGatewayV2::Route":
		return c.cfnRoute(id, raw, props)
	case "AWS::ApiGatewayV2::Stage":
		api, err := c.cfnAPI(id, raw["ApiId"], "ApiId", "HTTP")
		if err != nil || api == "" {
			return err
		}
		a := c.api(api, true)
		a.Stage, _ = props["StageName"].(string)
		if a.Stage == "$default" {
			a.Stage = ""
		}
		a.Variables = stringMap(props["StageVariables"])
		if rs, ok := props["DefaultRouteSettings"].(map[string]any); ok {
			return c.throttle(a, rs)
		}
	case "AWS::ApiGatewayV2::Authorizer":
		return c.cfnAuthorizer(id, raw, props, true)
	}
	return nil
}

// cfnAPI is the logical ID of the API a resource's RestApiId or ApiId
// names, which must be an API of kind: an error as SAM CLI's
// InvalidSamTemplateException for another resource, "" (and a line at
// start) for an API not in the template.
func (c *collector) cfnAPI(id string, v any, prop, kind string) (string, error) {
	api := RefTo(v)
	if api == "" {
		api, _ = v.(string)
	}
	if api == "" {
		c.note("%s: %s names no API of the template (%v); it is not served", id, prop, v)
		return "", nil
	}
	if c.t.apiKind(api) != kind {
		if c.t.Map("Resources", api) == nil {
			c.note("%s: %s %s is no resource of the template; it is not served", id, prop, api)
			return "", nil
		}
		return "", fmt.Errorf("%s: %s %s is not an %s API resource of the template", id, prop, api, kind)
	}
	return api, nil
}

// cfnMethod reads an AWS::ApiGateway::Method (CFNP _extract_cloud_formation_method).
func (c *collector) cfnMethod(id string, raw, props map[string]any) error {
	api, err := c.cfnAPI(id, raw["RestApiId"], "RestApiId", "REST")
	if err != nil || api == "" {
		return err
	}
	a := c.api(api, false)
	method, _ := props["HttpMethod"].(string)
	method = strings.ToUpper(method)
	path := c.resourcePath(raw["ResourceId"])
	in, _ := props["Integration"].(map[string]any)
	r := Route{Method: method, Path: path, Source: id, PayloadVersion: "1.0"}
	r.OperationName, _ = props["OperationName"].(string)
	// CONVERT_TO_BINARY with a ContentType adds a binary media type.
	if in["ContentHandling"] == "CONVERT_TO_BINARY" {
		if ct, ok := in["ContentType"].(string); ok {
			a.BinaryMediaTypes = append(a.BinaryMediaTypes, strings.ReplaceAll(ct, "~1", "/"))
		}
	}
	var cors *Cors
	for _, resp := range asMaps(in["IntegrationResponses"]) {
		params, _ := resp["ResponseParameters"].(map[string]any)
		if cors, err = methodCors(params, c, api); err != nil {
			return err
		}
		if cors != nil {
			break
		}
	}
	if cors != nil && method != "OPTIONS" {
		a.Cors = cors // SAM CLI takes a non-OPTIONS method's as the API's
	}
	typ, _ := in["Type"].(string)
	switch {
	case method == "OPTIONS" && cors != nil && !strings.EqualFold(typ, "AWS_PROXY"):
		r.Cors = cors // a preflight answered by the gateway (a MOCK)
	default:
		c.proxyFunction(&r, typ, "Integration.Uri", in["Uri"])
	}
	r.authorization(raw, props, "CUSTOM", "COGNITO_USER_POOLS")
	c.addRoute(a, r)
	return nil
}

// proxyFunction sets r's function from its integration: a Lambda proxy
// integration (type typ) whose URI (the property field) names a function
// of the template; anything else leaves r unserved, saying why.
func (c *collector) proxyFunction(r *Route, typ, field string, uri any) {
	if !strings.EqualFold(typ, "AWS_PROXY") {
		r.Unserved = fmt.Sprintf("its integration type %q is not served (only Lambda proxy integrations are)", typ)
	} else if name := functionNameOf(uri); name == "" {
		r.Unserved = fmt.Sprintf("its %s names no function (%v)", field, uri)
	} else {
		r.Function, r.Unserved = c.function(name)
	}
}

// authorization reads a method's or a route's AuthorizationType: IAM, an
// authorizer of one of the types that name one (by AuthorizerId, a Ref or
// a name), or none.
func (r *Route) authorization(raw, props map[string]any, named ...string) {
	switch at, _ := props["AuthorizationType"].(string); {
	case at == "AWS_IAM":
		r.authName = "AWS_IAM"
	case slices.Contains(named, at):
		r.authName = RefTo(raw["AuthorizerId"])
		if r.authName == "" {
			r.authName, _ = props["AuthorizerId"].(string)
		}
		r.Scopes = strs(props["AuthorizationScopes"])
	default:
		r.noAuth = true
	}
}

// resourcePath is the path of an AWS::ApiGateway::Resource: its PathPart
// after its parents' (CFNP resolve_resource_path), "/" for the API's root
// (!GetAtt Api.RootResourceId, which SAM CLI's resolver makes "/").
func (c *collector) resourcePath(v any) string {
	path := ""
	id := RefTo(v)
	for range len(c.t.Map("Resources")) + 1 {
		r := c.t.Map("Resources", id)
		if id == "" || r["Type"] != "AWS::ApiGateway::Resource" {
			break
		}
		p, _ := r["Properties"].(map[string]any)
		part, _ := c.t.loose(p["PathPart"]).(string)
		path = "/" + part + path
		id = RefTo(p["ParentId"])
	}
	if s, ok := v.(string); ok && path == "" {
		path = s
	}
	if path == "" {
		path = "/"
	}
	return path
}

// cfnAuthorizer reads an AWS::ApiGateway::Authorizer (REST) or an
// AWS::ApiGatewayV2::Authorizer (HTTP) under its logical ID, which a
// method's or route's AuthorizerId names (CFNP _extract_cfn_gateway_v1_authorizer,
// _v2_authorizer, validators/lambda_auth_props.py).
func (c *collector) cfnAuthorizer(id string, raw, props map[string]any, http bool) error {
	prop, kind, typeProp := "RestApiId", "REST", "Type"
	if http {
		prop, kind, typeProp = "ApiId", "HTTP", "AuthorizerType"
	}
	api, err := c.cfnAPI(id, raw[prop], prop, kind)
	if err != nil || api == "" {
		return err
	}
	a := c.api(api, http)
	typ, _ := props[typeProp].(string)
	typ = strings.ToUpper(typ)
	az := &Authorizer{Name: id, Type: typ, PayloadVersion: "1.0", TTL: 300}
	switch {
	case http && typ == "JWT":
		cfg, _ := props["JwtConfiguration"].(map[string]any)
		az.Issuer, _ = cfg["Issuer"].(string)
		az.Audience = strs(cfg["Audience"])
		az.IdentitySources = strs(props["IdentitySource"])
		if len(az.IdentitySources) == 0 {
			az.IdentitySources = []string{"$request.header.Authorization"}
		}
		if az.Issuer == "" {
			return fmt.Errorf("%s: JwtConfiguration.Issuer is missing", id)
		}
		a.Authorizers[id] = az
		return nil
	case typ != "TOKEN" && typ != "REQUEST" || http && typ != "REQUEST":
		c.note("Authorizer '%s' with type '%s' is currently not supported. Only Lambda Authorizers of type TOKEN and REQUEST (and JWT on an HTTP API) are served; the routes it guards run without it.", id, typ)
		return nil
	}
	name := functionNameOf(props["AuthorizerUri"])
	if name == "" {
		c.note("%s: AuthorizerUri names no function; the authorizer is not served and the routes it guards run without it", id)
		return nil
	}
	if az.Function, az.Unserved = c.function(name); az.Unserved != "" {
		c.note("%s: authorizer %s is not served: %s; the routes it guards answer 500", api, id, az.Unserved)
	}
	if v, ok := props["AuthorizerResultTtlInSeconds"]; ok {
		n, err := c.t.Number(v)
		if err != nil {
			return fmt.Errorf("%s: AuthorizerResultTtlInSeconds: %w", id, err)
		}
		az.TTL = int(n)
	} else if http {
		az.TTL = 0
	}
	if http {
		az.PayloadVersion = "2.0"
		if v, ok := props["AuthorizerPayloadFormatVersion"].(string); ok {
			az.PayloadVersion = v
		}
		if az.PayloadVersion != "1.0" && az.PayloadVersion != "2.0" {
			return fmt.Errorf("%s: Authorizer '%s' contains an invalid payload version", api, id)
		}
		az.SimpleResponses, _ = props["EnableSimpleResponses"].(bool)
		if az.SimpleResponses && az.PayloadVersion == "1.0" {
			return fmt.Errorf("%s: EnableSimpleResponses must be used with the 2.0 payload format version in Lambda Authorizer '%s'", api, id)
		}
		az.IdentitySources = strs(props["IdentitySource"])
	} else {
		src, _ := props["IdentitySource"].(string)
		for _, p := range strings.Split(src, ",") {
			if p = strings.TrimSpace(p); p != "" {
				az.IdentitySources = append(az.IdentitySources, p)
			}
		}
		if typ == "TOKEN" {
			if len(az.IdentitySources) != 1 || !strings.HasPrefix(az.IdentitySources[0], "method.request.header.") {
				return fmt.Errorf("%s: a TOKEN authorizer's IdentitySource must be one method.request.header.<name>", id)
			}
			az.Header = strings.TrimPrefix(az.IdentitySources[0], "method.request.header.")
			az.ValidationExpression, _ = props["IdentityValidationExpression"].(string)
		}
	}
	for _, s := range az.IdentitySources {
		if !identitySourceRules[http].MatchString(s) {
			return fmt.Errorf("identity source '%s' for Lambda Authorizer '%s' is not a valid identity source, check the spelling/format", s, id)
		}
	}
	a.Authorizers[id] = az
	return nil
}

// cfnHTTPAPI reads an AWS::ApiGatewayV2::Api: its Body, or a quick create's
// Target and RouteKey (CFNP _extract_cfn_gateway_v2_api); WebSocket APIs
// are said at start.
func (c *collector) cfnHTTPAPI(id string, props map[string]any) error {
	if pt, _ := props["ProtocolType"].(string); pt == "WEBSOCKET" {
		c.note("%s: a WebSocket API is not served", id)
		return nil
	}
	a := c.api(id, true)
	c.read[id] = true
	cors, err := httpCors(props["CorsConfiguration"], c, id)
	if err != nil {
		return err
	}
	a.Cors = cors
	if props["Body"] != nil || props["BodyS3Location"] != nil {
		return c.definition(a, props["Body"], props["BodyS3Location"], "Body", "BodyS3Location")
	}
	if props["Target"] == nil {
		return nil
	}
	method, path, err := routeKey(id, props["RouteKey"])
	if err != nil {
		return err
	}
	r := Route{Method: method, Path: path, Source: id, PayloadVersion: "2.0"}
	if name := functionNameOf(props["Target"]); name == "" {
		r.Unserved = fmt.Sprintf("its Target names no function (%v)", props["Target"])
	} else {
		r.Function, r.Unserved = c.function(name)
	}
	c.addRoute(a, r)
	return nil
}

// routeKey splits a RouteKey (CFNP _parse_route_key): none or $default is
// the default route.
func routeKey(id string, v any) (method, path string, err error) {
	key, _ := v.(string)
	if key == "" || key == DefaultRoute {
		return "ANY", DefaultRoute, nil
	}
	fields := strings.Fields(key)
	if len(fields) != 2 {
		return "", "", fmt.Errorf("the AWS::ApiGatewayV2::Route %s does not have a correct route key %s", id, key)
	}
	method = strings.ToUpper(fields[0])
	if method == "X-AMAZON-APIGATEWAY-ANY-METHOD" {
		method = "ANY"
	}
	return method, fields[1], nil
}

// cfnRoute reads an AWS::ApiGatewayV2::Route: its route key, and the
// function and payload version of the AWS::ApiGatewayV2::Integration its
// Target (integrations/<IntegrationId>) names (CFNP _extract_cfn_gateway_v2_route).
func (c *collector) cfnRoute(id string, raw, props map[string]any) error {
	api, err := c.cfnAPI(id, raw["ApiId"], "ApiId", "HTTP")
	if err != nil || api == "" {
		return err
	}
	a := c.api(api, true)
	method, path, err := routeKey(id, props["RouteKey"])
	if err != nil {
		return err
	}
	target, _ := props["Target"].(string)
	integration, ok := strings.CutPrefix(target, "integrations/")
	if !ok {
		c.note("%s: Target %q names no integrations/<Integration>; the route is not served", id, target)
		return nil
	}
	r := Route{Method: method, Path: path, Source: id, PayloadVersion: "2.0"}
	in := c.t.Map("Resources", integration)
	if in["Type"] != "AWS::ApiGatewayV2::Integration" {
		r.Unserved = fmt.Sprintf("its Target names %s, which is no AWS::ApiGatewayV2::Integration", integration)
	} else {
		ip, _ := c.t.loose(in["Properties"]).(map[string]any)
		if v, ok := ip["PayloadFormatVersion"]; ok {
			r.PayloadVersion = stringify(v)
		}
		typ, _ := ip["IntegrationType"].(string)
		c.proxyFunction(&r, typ, "IntegrationUri", ip["IntegrationUri"])
	}
	r.authorization(raw, props, "CUSTOM", "JWT")
	c.addRoute(a, r)
	return nil
}
