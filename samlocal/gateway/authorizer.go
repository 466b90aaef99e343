package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// Lambda authorizers, as API Gateway runs them ("Use API Gateway Lambda
// authorizers", "Input to an API Gateway Lambda authorizer", "Output from
// an API Gateway Lambda authorizer" for REST APIs; "Working with AWS Lambda
// authorizers for HTTP APIs"), with SAM CLI's events
// (samcli/local/apigw/local_apigw_service.py
// _generate_lambda_token_authorizer_event,
// _generate_lambda_request_authorizer_event(_http)) and its placement of
// the context (_invoke_parse_lambda_authorizer). Where SAM CLI departs from
// API Gateway, samlocal follows API Gateway: answers are cached for the
// authorizer's TTL (SAM CLI calls the authorizer on every request), an
// explicit Deny wins over an Allow (SAM CLI reads Allows only), nested
// $context identity sources resolve, and a missing stage variable is a 401
// (SAM CLI answers 502).

// authContext is what an authorizer hands the function's event:
// requestContext.authorizer of payload 1.0 (the context and principalId,
// flat; a JWT's claims and scopes) or of 2.0 (lambda or jwt).
type authContext struct {
	v1 map[string]any
	v2 *events.APIGatewayV2HTTPRequestContextAuthorizerDescription
}

type authorizerAnswer struct {
	PrincipalID    string         `json:"principalId"`
	PolicyDocument *policy        `json:"policyDocument"`
	Context        map[string]any `json:"context"`
	IsAuthorized   *bool          `json:"isAuthorized"`
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

func (g *Gateway) authorize(req *request) (authContext, string, string, authorization) {
	az := req.api.authorizers[req.route.Authorizer]
	if az.Type == "JWT" {
		return g.authorizeJWT(req, az)
	}
	return g.authorizeLambda(req, az)
}

// methodARN is the ARN the authorizer is asked about and its policy is
// evaluated against, the request's method and path:
// arn:aws:execute-api:{region}:{account}:{api}/{stage}/{method}/{path}
// (routeArn for an HTTP API's payload 2.0).
func (req *request) methodARN() string {
	return fmt.Sprintf("arn:aws:execute-api:%s:%s:%s/%s/%s/%s", Region, AccountID, APIID, req.api.StageName(), req.r.Method, strings.TrimPrefix(req.r.URL.Path, "/"))
}

// authorizeLambda runs a Lambda authorizer. Its identity must be there
// (a TOKEN authorizer's header, matching its validation expression; each
// identity source of a REQUEST authorizer, not empty), or the answer is
// UNAUTHORIZED without calling the function. An answer is cached per
// identity for the TTL. "Unauthorized" is UNAUTHORIZED, any other failure
// AUTHORIZER_FAILURE, an answer without a principal or policy (or, for
// simple responses, without a boolean isAuthorized)
// AUTHORIZER_CONFIGURATION_ERROR. The policy must Allow, and not Deny,
// execute-api:Invoke on the method ARN; a simple response must be
// isAuthorized; else ACCESS_DENIED.
func (g *Gateway) authorizeLambda(req *request, az *authorizer) (authContext, string, string, authorization) {
	var identity []string
	if az.Type == "TOKEN" {
		v := req.r.Header.Get(az.Header)
		if v == "" {
			return authContext{}, "UNAUTHORIZED", "Unauthorized", authorization{how: "no " + az.Header + " header"}
		}
		if az.validate != nil && !az.validate.MatchString(v) {
			return authContext{}, "UNAUTHORIZED", "Unauthorized", authorization{how: "the validation expression refused it; the function was not called"}
		}
		identity = []string{v}
	} else {
		for _, src := range az.IdentitySources {
			v, ok := req.identitySource(src)
			if !ok {
				return authContext{}, "UNAUTHORIZED", "Unauthorized", authorization{how: "no " + src + "; the function was not called"}
			}
			identity = append(identity, v)
		}
	}
	if az.Function == "" {
		g.logger.Error("the authorizer's function is not served", "authorizer", az.Name, "why", az.Unserved)
		return authContext{}, "AUTHORIZER_FAILURE", "", authorization{how: "its function is not served"}
	}
	arn := req.methodARN()
	key := strings.Join(identity, "\x00")
	useCache := az.TTL > 0 && len(identity) > 0
	c, hit := az.cached(key, g.now(), useCache)
	how := authorization{how: "cache hit"}
	if !hit {
		how.how = "cache miss"
		if !useCache {
			how.how = "no cache"
		}
		payload, err := req.authorizerEvent(az, identity, arn)
		if err != nil {
			return authContext{}, "AUTHORIZER_FAILURE", "", how
		}
		answer, failed, err := g.invoker.Invoke(context.WithoutCancel(req.r.Context()), az.Function, payload)
		switch {
		case err != nil:
			g.logger.Error("authorizer not reached", "error", err.Error())
			return authContext{}, "AUTHORIZER_FAILURE", "", how
		case failed:
			var doc struct {
				ErrorMessage string `json:"errorMessage"`
			}
			if json.Unmarshal(answer, &doc) != nil || doc.ErrorMessage != "Unauthorized" {
				g.logger.Warn("authorizer failed", "answer", string(answer))
				return authContext{}, "AUTHORIZER_FAILURE", "", how
			}
			c = cached{refused: true}
		default:
			if !az.validAnswer(answer, &c.answer) {
				g.logger.Warn("authorizer answer is not a policy", "answer", string(answer))
				return authContext{}, "AUTHORIZER_CONFIGURATION_ERROR", "", how
			}
		}
		if useCache {
			az.store(key, c, g.now())
		}
	}
	if c.refused {
		return authContext{}, "UNAUTHORIZED", "Unauthorized", how
	}
	how.principal = c.answer.PrincipalID
	if c.answer.PolicyDocument != nil {
		if doc, err := json.MarshalIndent(c.answer.PolicyDocument, "", "  "); err == nil {
			how.policy = string(doc)
		}
	}
	if c.answer.IsAuthorized != nil && az.SimpleResponses {
		if !*c.answer.IsAuthorized {
			return authContext{}, "ACCESS_DENIED", "User is not authorized to access this resource", how
		}
	} else if !allows(c.answer.PolicyDocument, arn) {
		return authContext{}, "ACCESS_DENIED", "User is not authorized to access this resource", how
	}
	ctx := map[string]any{}
	for k, v := range c.answer.Context {
		ctx[k] = v
	}
	if c.answer.PrincipalID != "" {
		ctx["principalId"] = c.answer.PrincipalID
	}
	if req.api.HTTP && req.route.PayloadVersion == "2.0" {
		return authContext{v2: &events.APIGatewayV2HTTPRequestContextAuthorizerDescription{Lambda: ctx}}, "", "", how
	}
	return authContext{v1: ctx}, "", "", how
}

// validAnswer reads an authorizer's answer: a simple response
// (isAuthorized, a boolean) where the authorizer gives them, else an IAM
// policy with a principal.
func (az *authorizer) validAnswer(raw []byte, into *authorizerAnswer) bool {
	if az.SimpleResponses {
		var probe map[string]json.RawMessage
		if json.Unmarshal(raw, &probe) != nil {
			return false
		}
		if v, ok := probe["isAuthorized"]; ok {
			var b bool
			if json.Unmarshal(v, &b) != nil {
				return false // SAM CLI: isAuthorized must be a boolean
			}
			into.IsAuthorized = &b
			_ = json.Unmarshal(probe["context"], &into.Context)
			return true
		}
	}
	if json.Unmarshal(raw, into) != nil || into.PrincipalID == "" || into.PolicyDocument == nil {
		return false
	}
	into.IsAuthorized = nil
	return true
}

// authorizerEvent is the authorizer's event: a TOKEN authorizer's token
// and method ARN; a REST REQUEST authorizer's request (the proxy event's
// fields) and method ARN; an HTTP API's payload 2.0 with identitySource
// (a list) and routeArn, or its 1.0 with identitySource and
// authorizationToken (the values joined with ",") and methodArn.
func (req *request) authorizerEvent(az *authorizer, identity []string, arn string) ([]byte, error) {
	switch {
	case az.Type == "TOKEN":
		return json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: identity[0], MethodArn: arn})
	case !req.api.HTTP:
		ev, _ := req.v1(false)
		rc := ev.RequestContext
		return json.Marshal(events.APIGatewayCustomAuthorizerRequestTypeRequest{
			Type: "REQUEST", MethodArn: arn, Resource: ev.Resource, Path: ev.Path, HTTPMethod: ev.HTTPMethod,
			Headers: ev.Headers, MultiValueHeaders: ev.MultiValueHeaders,
			QueryStringParameters: ev.QueryStringParameters, MultiValueQueryStringParameters: ev.MultiValueQueryStringParameters,
			PathParameters: ev.PathParameters, StageVariables: ev.StageVariables,
			RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{
				Path: rc.Path, AccountID: rc.AccountID, ResourceID: rc.ResourceID, Stage: rc.Stage, RequestID: rc.RequestID,
				Identity:     events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{SourceIP: rc.Identity.SourceIP},
				ResourcePath: rc.ResourcePath, HTTPMethod: rc.HTTPMethod, APIID: rc.APIID,
			},
		})
	case az.PayloadVersion == "1.0":
		ev, _ := req.v1(true)
		rc := ev.RequestContext
		joined := strings.Join(identity, ",")
		return json.Marshal(events.APIGatewayV2CustomAuthorizerV1Request{
			Version: "1.0", Type: "REQUEST", MethodArn: arn, IdentitySource: joined, AuthorizationToken: joined,
			Resource: ev.Resource, Path: ev.Path, HTTPMethod: ev.HTTPMethod, Headers: ev.Headers,
			QueryStringParameters: ev.QueryStringParameters, PathParameters: ev.PathParameters, StageVariables: ev.StageVariables,
			RequestContext: events.APIGatewayV2CustomAuthorizerV1RequestTypeRequestContext{
				Path: rc.Path, AccountID: rc.AccountID, ResourceID: rc.ResourceID, Stage: rc.Stage, RequestID: rc.RequestID,
				Identity:     events.APIGatewayCustomAuthorizerRequestTypeRequestIdentity{SourceIP: rc.Identity.SourceIP},
				ResourcePath: rc.ResourcePath, HTTPMethod: rc.HTTPMethod, APIID: rc.APIID,
			},
		})
	}
	ev, _ := req.v2()
	return json.Marshal(events.APIGatewayV2CustomAuthorizerV2Request{
		Version: "2.0", Type: "REQUEST", RouteArn: arn, IdentitySource: identity, RouteKey: ev.RouteKey,
		RawPath: ev.RawPath, RawQueryString: ev.RawQueryString, Cookies: ev.Cookies, Headers: ev.Headers,
		QueryStringParameters: ev.QueryStringParameters, RequestContext: ev.RequestContext,
		PathParameters: ev.PathParameters, StageVariables: ev.StageVariables,
	})
}

// identitySource reads an identity source expression: a header (its
// values joined with ","), a query parameter (its first non-empty value),
// a stage variable or a request context value; ok is false when it is
// missing or empty, which API Gateway answers 401 without calling the
// authorizer.
func (req *request) identitySource(src string) (string, bool) {
	s := strings.TrimPrefix(src, "$")
	s = strings.TrimPrefix(s, "method.")
	var v string
	switch {
	case strings.HasPrefix(s, "request.header."):
		v = strings.Join(req.r.Header.Values(strings.TrimPrefix(s, "request.header.")), ",")
	case strings.HasPrefix(s, "request.querystring."):
		name := strings.TrimPrefix(s, "request.querystring.")
		for _, e := range req.r.URL.Query()[name] {
			if e != "" {
				v = e
				break
			}
		}
	case strings.HasPrefix(s, "stageVariables."):
		v = req.api.Variables[strings.TrimPrefix(s, "stageVariables.")]
	case strings.HasPrefix(s, "context."):
		v = req.contextValue(strings.TrimPrefix(s, "context."))
	}
	return v, v != ""
}

// contextValue is a $context variable of the request.
func (req *request) contextValue(name string) string {
	r := req.r
	switch name {
	case "stage":
		return req.api.StageName()
	case "requestId":
		return req.id
	case "httpMethod", "http.method":
		return r.Method
	case "path":
		return "/" + req.api.StageName() + r.URL.Path
	case "http.path":
		return r.URL.Path
	case "resourcePath":
		return req.route.Path
	case "routeKey":
		return req.route.Key()
	case "resourceId":
		return "local"
	case "apiId":
		return APIID
	case "accountId":
		return AccountID
	case "domainName":
		return r.Host
	case "domainPrefix":
		return domainPrefix(r.Host)
	case "protocol", "http.protocol":
		return r.Proto
	case "identity.sourceIp", "http.sourceIp":
		return sourceIP(r)
	case "identity.userAgent", "http.userAgent":
		return r.UserAgent()
	case "requestTimeEpoch":
		return strconv.FormatInt(req.now.UnixMilli(), 10)
	}
	return ""
}

// authorization is what the trace shows of an authorization: how the
// answer was found (cache hit or miss, or no call at all), the principal
// and the policy.
type authorization struct {
	how, principal, policy string
	challenge              string // a JWT refusal's www-authenticate
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

// cached is the answer for identity, when the cache is on and has one
// still fresh.
func (az *authorizer) cached(identity string, now time.Time, on bool) (cached, bool) {
	if !on {
		return cached{}, false
	}
	az.mu.Lock()
	defer az.mu.Unlock()
	c, ok := az.cache[identity]
	if !ok || !now.Before(c.expires) {
		delete(az.cache, identity)
		return cached{}, false
	}
	return c, true
}

func (az *authorizer) store(identity string, c cached, now time.Time) {
	c.expires = now.Add(time.Duration(az.TTL) * time.Second)
	az.mu.Lock()
	az.cache[identity] = c
	az.mu.Unlock()
}

// allows evaluates the policy as IAM does for one action on one resource:
// an explicit Deny wins, then an Allow, and nothing matching is a deny.
func allows(p *policy, arn string) bool {
	if p == nil {
		return false
	}
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
