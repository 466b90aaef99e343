package samtemplate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// CORS as SAM CLI reads it (samcli/lib/providers/cfn_base_api_provider.py
// extract_cors, extract_cors_http, extract_cors_from_method,
// normalize_cors_allow_methods), with its messages.

// restCors reads a REST API's Cors: a quoted origin string, or a map of
// quoted strings (AllowCredentials may be a YAML true).
func restCors(v any, c *collector, api string) (*Cors, error) {
	switch x := v.(type) {
	case string:
		if x == "" {
			return nil, nil
		}
		if !strings.HasPrefix(x, "'") || !strings.HasSuffix(x, "'") {
			return nil, fmt.Errorf(`%s: Cors Properties must be a quoted string (i.e. "'*'" is correct, but "*" is not)`, api)
		}
		return &Cors{AllowOrigin: strings.Trim(x, "'"), AllowMethods: strings.Join(sortedAny(), ",")}, nil
	case map[string]any:
		return corsFromMap(x, c, api)
	}
	return nil, nil
}

func corsFromMap(m map[string]any, c *collector, api string) (*Cors, error) {
	prop := func(name string, allowBool bool) (string, error) {
		v, ok := m[name]
		if !ok || v == nil || v == "" || v == false {
			return "", nil
		}
		if b, isBool := v.(bool); allowBool && isBool && b {
			v = "'true'"
		}
		s, isString := v.(string)
		if !isString || strings.HasPrefix(s, "!") {
			c.note("%s: CORS Property %s was not fully resolved. Will proceed as if the Property was not defined.", api, name)
			return "", nil
		}
		if !strings.HasPrefix(s, "'") || !strings.HasSuffix(s, "'") {
			return "", fmt.Errorf(`%s: %s must be a quoted string (i.e. "'value'" is correct, but "value" is not)`, api, name)
		}
		return strings.Trim(s, "'"), nil
	}
	var cors Cors
	var err error
	methods, err := prop("AllowMethods", false)
	if err != nil {
		return nil, err
	}
	if cors.AllowMethods, err = normalizeMethods(strings.Split(methods, ","), methods == ""); err != nil {
		return nil, fmt.Errorf("%s: %w", api, err)
	}
	for _, p := range []struct {
		name      string
		to        *string
		allowBool bool
	}{{"AllowOrigin", &cors.AllowOrigin, false}, {"AllowHeaders", &cors.AllowHeaders, false}, {"AllowCredentials", &cors.AllowCredentials, true}, {"MaxAge", &cors.MaxAge, false}} {
		if *p.to, err = prop(p.name, p.allowBool); err != nil {
			return nil, err
		}
	}
	return &cors, nil
}

// httpCors reads an HTTP API's CorsConfiguration: true, or a map of lists,
// a bool and a number (ExposeHeaders, which SAM CLI ignores, is kept: API
// Gateway sends it).
func httpCors(v any, c *collector, api string) (*Cors, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return &Cors{AllowOrigin: "*", AllowMethods: strings.Join(sortedAny(), ",")}, nil
		}
	case map[string]any:
		list := func(name string) ([]string, bool) {
			v, ok := x[name]
			if !ok || v == nil {
				return nil, false
			}
			l, isList := v.([]any)
			if !isList {
				c.note("%s: CORS Property %s was not fully resolved. Will proceed as if the Property was not defined.", api, name)
				return nil, false
			}
			return strs(l), true
		}
		var cors Cors
		methods, ok := list("AllowMethods")
		var err error
		if cors.AllowMethods, err = normalizeMethods(methods, !ok); err != nil {
			return nil, fmt.Errorf("%s: %w", api, err)
		}
		origins, _ := list("AllowOrigins")
		cors.AllowOrigin = strings.Join(origins, ",")
		headers, _ := list("AllowHeaders")
		cors.AllowHeaders = strings.Join(headers, ",")
		expose, _ := list("ExposeHeaders")
		cors.ExposeHeaders = strings.Join(expose, ",")
		if b, _ := x["AllowCredentials"].(bool); b {
			cors.AllowCredentials = "true"
		}
		switch n := x["MaxAge"].(type) {
		case int:
			cors.MaxAge = strconv.Itoa(n)
		case nil:
		default:
			c.note("%s: CORS Property MaxAge was not fully resolved. Will proceed as if the Property was not defined.", api)
		}
		return &cors, nil
	}
	return nil, nil
}

// openAPICors reads an HTTP API OpenAPI document's x-amazon-apigateway-cors
// (API Gateway's OpenAPI extensions; SAM CLI does not read it).
func openAPICors(m map[string]any, c *collector, api string) (*Cors, error) {
	conf := map[string]any{}
	for k, v := range m {
		conf[strings.ToUpper(k[:1])+k[1:]] = v
	}
	return httpCors(conf, c, api)
}

// normalizeMethods is normalize_cors_allow_methods: * (or none given) is
// every method; else each is trimmed and upper-cased and must be one of
// ANY's, OPTIONS is added, and they are sorted and joined with ",".
func normalizeMethods(methods []string, all bool) (string, error) {
	if all || slices.Contains(methods, "*") {
		return strings.Join(sortedAny(), ","), nil
	}
	var out []string
	for _, m := range methods {
		m = strings.ToUpper(strings.TrimSpace(m))
		if !slices.Contains(anyMethods, m) {
			return "", fmt.Errorf("the method %s is not a valid CORS method", m)
		}
		out = append(out, m)
	}
	if !slices.Contains(out, "OPTIONS") {
		out = append(out, "OPTIONS")
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), ","), nil
}

func sortedAny() []string { return slices.Sorted(slices.Values(anyMethods)) }

// methodCors reads an AWS::ApiGateway::Method's CORS from its integration
// responses' method.response.header.Access-Control-* parameters
// (extract_cors_from_method), nil when it has none.
func methodCors(params map[string]any, c *collector, api string) (*Cors, error) {
	m := map[string]any{}
	for prop, header := range map[string]string{
		"AllowHeaders": "Access-Control-Allow-Headers", "AllowMethods": "Access-Control-Allow-Methods",
		"AllowOrigin": "Access-Control-Allow-Origin", "AllowCredentials": "Access-Control-Allow-Credentials",
		"MaxAge": "Access-Control-Max-Age",
	} {
		if v, ok := params["method.response.header."+header]; ok {
			m[prop] = v
		}
	}
	if len(m) == 0 {
		return nil, nil
	}
	return corsFromMap(m, c, api)
}
