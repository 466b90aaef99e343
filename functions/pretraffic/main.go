// Command pretraffic is the CodeDeploy PreTraffic hook of both functions: it
// proves each new version, the way that version can fail, before any client
// reaches it, then reports Succeeded or Failed to CodeDeploy with
// PutLifecycleEventHookExecutionStatus.
//
// createplant must answer a body that is not JSON with 400/40001 (it
// started, routed and answered in the contract's shape, writing nothing),
// and the reserved plant {"id": -9223372036854775808, "name": "pre-traffic
// check"} with 200 and that plant: its store is reachable and its table is
// there. The first deployment writes that plant; every later one replays it,
// which the contract makes a 200 that writes nothing.
//
// The authorizer must answer "Unauthorized" to a malformed token and to a
// token signed with a throwaway key (the stack's own token re-signed, header
// and claims unchanged), and, where the stack has a Cognito user pool, an
// Allow policy for the method ARN to a token that the hook obtains as a
// client does (the app client's secret, the client credentials grant).
//
// A version that fails its init, panics or answers wrongly never receives
// traffic; a hook that cannot decide (its own error, a timeout) reports
// Failed rather than leaving CodeDeploy waiting for an hour.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	cdtypes "github.com/aws/aws-sdk-go-v2/service/codedeploy/types"
	"github.com/aws/aws-sdk-go-v2/service/cognitoidentityprovider"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/plantstore/plantstore/functions/internal/lambdainit"
)

func main() {
	lambdainit.Main(lambdainit.Function[*hook]{New: newHook, Handler: func(h *hook) any { return h.handle }})
}

// malformedToken passes the gateway's validation expression but is no JWT:
// every good authorizer refuses it.
const malformedToken = "Bearer pre.traffic.check" // #nosec G101 -- deliberately not a credential

// The reserved plant, which the hook stores with the first deployment and
// replays with every later one. Its id is the least int64: the end of the
// id's range that a client counting up never reaches. docs/design.md and
// api/openapi.yaml say it is reserved.
const (
	reservedID   int64 = math.MinInt64
	reservedName       = "pre-traffic check"
)

// hookPrincipal is the principal of the hook's requests to createplant, as
// the gateway would pass it on from the authorizer.
const hookPrincipal = "pre-traffic-hook"

// reportMargin is kept free before the hook's own deadline for the report.
const reportMargin = 3 * time.Second

// config is the hook's environment (template.yaml declares each).
type config struct {
	createPlant string // the createplant version to prove: its ARN (or, locally, its name)
	authorizer  string // the authorizer version to prove
	methodARN   string // a method ARN of this stack's form, for the authorizer's event

	// What the authorizer is told (the same variables and values), for the
	// tokens the hook makes and asks for.
	issuer, audience, scope string

	// The stack's Cognito user pool and the app client whose tokens the
	// authorizer accepts; all three empty with another issuer.
	userPoolID, clientID, tokenEndpoint string
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		createPlant: getenv("CREATEPLANT_VERSION"), authorizer: getenv("AUTHORIZER_VERSION"), methodARN: getenv("METHOD_ARN"),
		issuer: getenv("AUTH_ISSUER"), audience: getenv("AUTH_AUDIENCE"), scope: getenv("AUTH_REQUIRED_SCOPE"),
		userPoolID: getenv("COGNITO_USER_POOL_ID"), clientID: getenv("COGNITO_CLIENT_ID"), tokenEndpoint: getenv("COGNITO_TOKEN_ENDPOINT"),
	}
	if c.createPlant == "" || c.authorizer == "" || c.methodARN == "" {
		return c, errors.New("CREATEPLANT_VERSION, AUTHORIZER_VERSION and METHOD_ARN are required")
	}
	switch set := len(slices.DeleteFunc([]string{c.userPoolID, c.clientID, c.tokenEndpoint}, func(s string) bool { return s == "" })); set {
	case 0:
	case 3:
		if err := checkTokenEndpoint(c.tokenEndpoint); err != nil {
			return c, fmt.Errorf("COGNITO_TOKEN_ENDPOINT: %w", err)
		}
	default:
		return c, errors.New("COGNITO_USER_POOL_ID, COGNITO_CLIENT_ID and COGNITO_TOKEN_ENDPOINT go together: all three (a Cognito user pool) or none (another issuer)")
	}
	return c, nil
}

// checkTokenEndpoint admits https, and plain http on loopback only (for
// tests): the app client's secret goes there.
func checkTokenEndpoint(raw string) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil:
		return err
	case u.Host == "":
		return fmt.Errorf("%q is not an absolute URL", raw)
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("%q: want https (plain http only on loopback)", raw)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// invoker, reporter and clientReader are the parts of the Lambda,
// CodeDeploy and Cognito clients the hook uses.
type invoker interface {
	Invoke(ctx context.Context, in *awslambda.InvokeInput, opts ...func(*awslambda.Options)) (*awslambda.InvokeOutput, error)
}

type reporter interface {
	PutLifecycleEventHookExecutionStatus(ctx context.Context, in *codedeploy.PutLifecycleEventHookExecutionStatusInput, opts ...func(*codedeploy.Options)) (*codedeploy.PutLifecycleEventHookExecutionStatusOutput, error)
}

type clientReader interface {
	DescribeUserPoolClient(ctx context.Context, in *cognitoidentityprovider.DescribeUserPoolClientInput, opts ...func(*cognitoidentityprovider.Options)) (*cognitoidentityprovider.DescribeUserPoolClientOutput, error)
}

type hook struct {
	cfg     config
	lambda  invoker
	deploy  reporter
	clients clientReader // nil without a Cognito user pool
	http    *http.Client // to the token endpoint
	now     func() time.Time
	logger  *slog.Logger
}

// newHook makes the clients once. config.LoadDefaultConfig reads the
// region, the role's credentials and the SDK's endpoint variables
// (AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_CODEDEPLOY,
// AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER), which the tests point at make
// start-lambda's server, a recorder and a stand-in user pool.
func newHook(ctx context.Context, getenv func(string) string, logger *slog.Logger) (*hook, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	h := &hook{
		cfg: cfg, lambda: awslambda.NewFromConfig(awsCfg), deploy: codedeploy.NewFromConfig(awsCfg),
		http: tokenClient(), now: time.Now, logger: logger,
	}
	if cfg.userPoolID != "" {
		h.clients = cognitoidentityprovider.NewFromConfig(awsCfg)
	}
	return h, nil
}

// hookEvent is what CodeDeploy sends a lifecycle hook.
type hookEvent struct {
	DeploymentID                  string `json:"DeploymentId"`
	LifecycleEventHookExecutionID string `json:"LifecycleEventHookExecutionId"`
}

func (h *hook) handle(ctx context.Context, ev hookEvent) error {
	if ev.DeploymentID == "" || ev.LifecycleEventHookExecutionID == "" {
		return errors.New("not a CodeDeploy lifecycle event: DeploymentId and LifecycleEventHookExecutionId are required")
	}
	checkCtx := ctx
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		checkCtx, cancel = context.WithDeadline(ctx, deadline.Add(-reportMargin))
		defer cancel()
	}
	status := cdtypes.LifecycleEventStatusSucceeded
	log := h.logger.With("deploymentId", ev.DeploymentID)
	if h.clients == nil {
		log.WarnContext(ctx, "pre-traffic check: no Cognito user pool (another issuer), so no token of the stack to prove that the authorizer allows a good token; the other checks run")
	}
	if err := h.prove(checkCtx); err != nil {
		status = cdtypes.LifecycleEventStatusFailed
		log.ErrorContext(ctx, "pre-traffic check", "outcome", "failed", "error", err.Error())
	} else {
		log.InfoContext(ctx, "pre-traffic check", "outcome", "succeeded")
	}
	_, err := h.deploy.PutLifecycleEventHookExecutionStatus(ctx, &codedeploy.PutLifecycleEventHookExecutionStatusInput{
		DeploymentId:                  aws.String(ev.DeploymentID),
		LifecycleEventHookExecutionId: aws.String(ev.LifecycleEventHookExecutionID),
		Status:                        status,
	})
	if err != nil {
		return fmt.Errorf("report %s to CodeDeploy: %w", status, err)
	}
	return nil
}

// prove proves both functions and returns every failure, so that one failed
// deployment names all that is wrong with it. Within a function the first
// failure is the answer.
func (h *hook) prove(ctx context.Context) error {
	var errs []error
	if err := h.proveCreatePlant(ctx); err != nil {
		errs = append(errs, fmt.Errorf("createplant %s: %w", h.cfg.createPlant, err))
	}
	if err := h.proveAuthorizer(ctx); err != nil {
		errs = append(errs, fmt.Errorf("authorizer %s: %w", h.cfg.authorizer, err))
	}
	return errors.Join(errs...)
}

// proveCreatePlant sends, from the hook's principal, a body that is not JSON
// (400 with the Error {"error": 40001, ...}, nothing written), then the
// reserved plant (200 with that plant: stored by the first deployment,
// replayed by every later one). A missing table answers 500 and a store that
// cannot be reached 503.
func (h *hook) proveCreatePlant(ctx context.Context) error {
	status, body, err := h.createPlant(ctx, "pre-traffic check: not JSON")
	if err != nil {
		return err
	}
	var e struct {
		Error   int32  `json:"error"`
		Message string `json:"message"`
	}
	if status != http.StatusBadRequest || json.Unmarshal([]byte(body), &e) != nil || e.Error != 40001 || e.Message == "" {
		return fmt.Errorf("a body that is not JSON got %d %q, want 400 with error 40001", status, body)
	}

	plant, _ := json.Marshal(struct {
		ID   int64  `json:"id"`
		Name string `json:"name"`
	}{reservedID, reservedName})
	if status, body, err = h.createPlant(ctx, string(plant)); err != nil {
		return err
	}
	var got map[string]any
	if status == http.StatusOK && json.Unmarshal([]byte(body), &got) == nil && len(got) == 1 && got["name"] == reservedName {
		return nil
	}
	if status == http.StatusBadRequest && json.Unmarshal([]byte(body), &e) == nil && e.Error == 40009 {
		return fmt.Errorf("the reserved plant %s got 400/40009: another plant holds the id %d, which is reserved for this check (docs/design.md, \"Safe deployments\")", plant, reservedID)
	}
	return fmt.Errorf("the reserved plant %s got %d %q, want 200 with {\"name\":%q} (a reachable store with its table)", plant, status, body, reservedName)
}

// createPlant invokes createplant with a POST /plants of body, as the
// gateway sends it after the authorizer allowed the hook's principal.
func (h *hook) createPlant(ctx context.Context, body string) (int, string, error) {
	ev := events.APIGatewayProxyRequest{
		Resource: "/plants", Path: "/plants", HTTPMethod: "POST",
		Headers:           map[string]string{"Content-Type": "application/json"},
		MultiValueHeaders: map[string][]string{"Content-Type": {"application/json"}},
		Body:              body,
		RequestContext: events.APIGatewayProxyRequestContext{
			Stage: "v1", HTTPMethod: "POST", ResourcePath: "/plants", RequestID: "pre-traffic",
			Authorizer: map[string]any{"principalId": hookPrincipal},
		},
	}
	var resp events.APIGatewayProxyResponse
	if err := h.invoke(ctx, h.cfg.createPlant, ev, &resp); err != nil {
		return 0, "", err
	}
	return resp.StatusCode, resp.Body, nil
}

// proveAuthorizer sends a malformed token and a token signed with a
// throwaway key, which must both get the error "Unauthorized" (the one
// answer that API Gateway turns into a 401), and, with a Cognito user pool,
// a token of the stack's app client, which must get an Allow policy for the
// method ARN.
func (h *hook) proveAuthorizer(ctx context.Context) error {
	if err := h.wantUnauthorized(ctx, "a malformed token", malformedToken); err != nil {
		return err
	}
	var good string
	if h.clients != nil {
		var err error
		if good, err = h.stackToken(ctx); err != nil {
			return fmt.Errorf("a token of the stack's app client %s: %w", h.cfg.clientID, err)
		}
	}
	forged, err := h.throwawayToken(good)
	if err != nil {
		return fmt.Errorf("a token signed with a throwaway key: %w", err)
	}
	if err := h.wantUnauthorized(ctx, "a token signed with a throwaway key", "Bearer "+forged); err != nil {
		return err
	}
	if good == "" {
		return nil
	}
	return h.wantAllowed(ctx, "a token of the stack's app client", "Bearer "+good)
}

func (h *hook) wantUnauthorized(ctx context.Context, what, authorization string) error {
	var doc struct {
		ErrorMessage string `json:"errorMessage"`
	}
	err := h.invoke(ctx, h.cfg.authorizer, h.tokenEvent(authorization), &doc)
	var fe *functionError
	if !errors.As(err, &fe) {
		if err == nil {
			return fmt.Errorf("%s got a policy, want Unauthorized", what)
		}
		return err
	}
	if json.Unmarshal(fe.payload, &doc) != nil || doc.ErrorMessage != "Unauthorized" {
		return fmt.Errorf("%s got the error %s, want Unauthorized", what, fe.payload)
	}
	return nil
}

func (h *hook) wantAllowed(ctx context.Context, what, authorization string) error {
	var resp events.APIGatewayCustomAuthorizerResponse
	err := h.invoke(ctx, h.cfg.authorizer, h.tokenEvent(authorization), &resp)
	if fe := (*functionError)(nil); errors.As(err, &fe) {
		return fmt.Errorf("%s got the error %s, want an Allow policy for %s", what, fe.payload, h.cfg.methodARN)
	}
	if err != nil {
		return err
	}
	if resp.PrincipalID == "" || !allows(resp.PolicyDocument, h.cfg.methodARN) {
		policy, _ := json.Marshal(resp)
		return fmt.Errorf("%s got %s, want a principal and an Allow policy for %s", what, policy, h.cfg.methodARN)
	}
	return nil
}

func (h *hook) tokenEvent(authorization string) events.APIGatewayCustomAuthorizerRequest {
	return events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: authorization, MethodArn: h.cfg.methodARN}
}

// allows says whether policy lets its principal call execute-api:Invoke on
// arn, by IAM's rule: an Allow statement matches it and no Deny does.
func allows(policy events.APIGatewayCustomAuthorizerPolicy, arn string) bool {
	allowed := false
	for _, st := range policy.Statement {
		invoke := slices.ContainsFunc(st.Action, func(a string) bool { return match(strings.ToLower(a), "execute-api:invoke") })
		if !invoke || !slices.ContainsFunc(st.Resource, func(r string) bool { return match(r, arn) }) {
			continue
		}
		switch {
		case strings.EqualFold(st.Effect, "Deny"):
			return false
		case strings.EqualFold(st.Effect, "Allow"):
			allowed = true
		}
	}
	return allowed
}

// match says whether s matches pattern, in which * stands for any run of
// characters and ? for one, as in IAM's resource and action names.
func match(pattern, s string) bool {
	p, i, star, next := 0, 0, -1, 0
	for i < len(s) {
		switch {
		case p < len(pattern) && (pattern[p] == '?' || pattern[p] == s[i]):
			p++
			i++
		case p < len(pattern) && pattern[p] == '*':
			star, next = p, i
			p++
		case star >= 0:
			next++
			p, i = star+1, next
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}

// functionError is a function's own error (X-Amz-Function-Error): its
// answer is an error document.
type functionError struct {
	kind    string
	payload []byte
}

func (e *functionError) Error() string {
	return fmt.Sprintf("function error %s: %s", e.kind, e.payload)
}

// invoke calls function with event and decodes its answer into out; a
// function error is a *functionError.
func (h *hook) invoke(ctx context.Context, function string, event, out any) error {
	payload, err := json.Marshal(event)
	if err != nil {
		return err
	}
	res, err := h.lambda.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String(function), Payload: payload})
	if err != nil {
		return fmt.Errorf("invoke: %w", err)
	}
	if res.FunctionError != nil {
		return &functionError{kind: *res.FunctionError, payload: res.Payload}
	}
	if err := json.Unmarshal(res.Payload, out); err != nil {
		return fmt.Errorf("answer %q: %w", res.Payload, err)
	}
	return nil
}
