// Command authorizer is the API Gateway TOKEN authorizer: it verifies the
// bearer token with the same verifier as the local API and answers an Allow
// policy for the calling API and stage, a Deny policy for a valid token without
// the required scope, or "Unauthorized".
package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/plantstore/plantstore/functions/internal/emf"
	"github.com/plantstore/plantstore/functions/internal/lambdainit"
	"github.com/plantstore/plantstore/internal/auth"
)

func main() {
	lambdainit.Main(lambdainit.Function[*authorizer]{New: newAuthorizer, Handler: func(a *authorizer) any { return a.handle }})
}

// errUnauthorized is the one error text API Gateway turns into a 401.
var errUnauthorized = errors.New("Unauthorized")

type authorizer struct {
	verifier  *auth.Verifier
	logger    *slog.Logger
	namespace string // METRICS_NAMESPACE: where the decisions are counted; "" for none
	now       func() time.Time
}

// newAuthorizer reads the AUTH_* variables; an issuer, an audience and one
// key source are required (auth.ConfigFromEnv refuses two, auth.NewVerifier
// says which is missing).
func newAuthorizer(ctx context.Context, getenv func(string) string, logger *slog.Logger) (*authorizer, error) {
	cfg, err := auth.ConfigFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	cfg.Logger = logger
	v, err := auth.NewVerifier(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &authorizer{verifier: v, logger: logger, namespace: getenv("METRICS_NAMESPACE"), now: time.Now}, nil
}

func (a *authorizer) handle(ctx context.Context, event events.APIGatewayCustomAuthorizerRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
	log := a.logger
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		log = log.With("requestId", lc.AwsRequestID)
	}
	resource, ok := stageResource(event.MethodArn)
	if !ok {
		a.decided(ctx, log, slog.LevelError, "refused", "malformed_method_arn", "")
		return events.APIGatewayCustomAuthorizerResponse{}, errUnauthorized
	}
	p, err := a.verifier.VerifyHeader(ctx, event.AuthorizationToken)
	reason := auth.Reason(err)
	switch {
	case err == nil:
		a.decided(ctx, log, slog.LevelInfo, "allowed", "none", p.Subject)
		return policy(p, "Allow", resource), nil
	case errors.Is(err, auth.ErrInsufficientScope):
		a.decided(ctx, log, slog.LevelInfo, "denied", reason, p.Subject)
		return policy(p, "Deny", resource), nil
	case reason == auth.ReasonKeysUnavailable:
		// Not the client's fault: every token is refused until the keys
		// come back. An ERROR, which the alarms count.
		a.decided(ctx, log, slog.LevelError, "refused", reason, "")
		return events.APIGatewayCustomAuthorizerResponse{}, errUnauthorized
	default:
		a.decided(ctx, log, slog.LevelInfo, "refused", reason, "")
		return events.APIGatewayCustomAuthorizerResponse{}, errUnauthorized
	}
}

// decisionDirectives are the authorizer's metrics: Tokens by Decision, by
// Reason (the dashboard) and for the stack; RefusedTokens, KeysUnavailable,
// SignedTokens and SignedRefusals for the stack (the alarms).
var decisionDirectives = []emf.Directive{
	emf.Directive{Dimensions: [][]string{{"Decision"}, {"Reason"}, {}}, Metrics: []string{"Tokens"}},
	emf.Directive{Dimensions: [][]string{{}}, Metrics: []string{"RefusedTokens", "KeysUnavailable", "SignedTokens", "SignedRefusals"}},
}

// signedReasons are the refusals of a token whose signature verified with
// the issuer's key: golang-jwt checks the signature before the claims
// (parser.go: Method.Verify, then the validator), and the audience is
// checked after that. Nobody without a token of the issuer can cause one,
// so a stranger's garbage (malformed, bad_signature, an unknown kid, a crit
// header: "invalid") never counts here, and a wave of them means the
// stack's configuration and the issuer disagree (a changed issuer or
// audience, a clock) or the clients' tokens are stale.
var signedReasons = map[string]bool{
	auth.ReasonExpired: true, auth.ReasonNotYetValid: true, auth.ReasonIssuer: true, auth.ReasonAudience: true,
}

// decided writes the one line of an authorization, with its metrics (EMF)
// when the stack names a namespace: Tokens by Decision, by Reason and for
// the stack; RefusedTokens, KeysUnavailable, SignedTokens (allowed, denied or
// refused for a signedReason) and SignedRefusals (1 or 0) for the stack, which
// the alarms watch. Never the token; the subject only when it was verified.
func (a *authorizer) decided(ctx context.Context, log *slog.Logger, level slog.Level, decision, reason, subject string) {
	attrs := []slog.Attr{slog.String("outcome", decision), slog.String("reason", reason)}
	if subject != "" {
		attrs = append(attrs, slog.String("subject", subject))
	}
	if a.namespace != "" {
		attrs = append(attrs, emf.Attrs(a.namespace, a.now(), map[string]string{"Decision": decision, "Reason": reason},
			[]emf.Metric{
				{Name: "Tokens", Unit: emf.Count, Value: 1},
				{Name: "RefusedTokens", Unit: emf.Count, Value: emf.Once(decision == "refused")},
				{Name: "KeysUnavailable", Unit: emf.Count, Value: emf.Once(reason == auth.ReasonKeysUnavailable)},
				{Name: "SignedTokens", Unit: emf.Count, Value: emf.Once(decision != "refused" || signedReasons[reason])},
				{Name: "SignedRefusals", Unit: emf.Count, Value: emf.Once(decision == "refused" && signedReasons[reason])},
			}, decisionDirectives...)...)
	}
	log.LogAttrs(ctx, level, "authorize", attrs...)
}

// methodARN is the form of the ARN API Gateway builds for the called method:
// arn:{partition}:execute-api:{region}:{12-digit account}:{apiId}/{stage}/{METHOD}/{path}.
// API Gateway never puts a wildcard in it; a direct invoker (anyone with
// lambda:InvokeFunction, a deployment hook, a test) could, so no '*' or '?'
// may stand anywhere, and each part must have its documented shape.
var methodARN = regexp.MustCompile(`^arn:(aws(?:-[a-z]+)*):execute-api:([a-z]{2}(?:-[a-z]+)+-[0-9]+):([0-9]{12}):([A-Za-z0-9_-]+)/([A-Za-z0-9_-]+)/[A-Z]+/[^*?]*$`)

// stageResource turns the called method's ARN into one that covers every
// method and path of that API and stage, so that the gateway's cached answer
// serves every route and no other API. ok is false for an ARN that is not
// exactly of the form above.
func stageResource(arn string) (resource string, ok bool) {
	m := methodARN.FindStringSubmatch(arn)
	if m == nil {
		return "", false
	}
	partition, region, account, apiID, stage := m[1], m[2], m[3], m[4], m[5]
	return fmt.Sprintf("arn:%s:execute-api:%s:%s:%s/%s/*/*", partition, region, account, apiID, stage), true
}

func policy(p auth.Principal, effect, resource string) events.APIGatewayCustomAuthorizerResponse {
	return events.APIGatewayCustomAuthorizerResponse{
		PrincipalID: p.Subject,
		PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{
			Version: "2012-10-17",
			Statement: []events.IAMPolicyStatement{{
				Action:   []string{"execute-api:Invoke"},
				Effect:   effect,
				Resource: []string{resource},
			}},
		},
		// The subject again in the context, which the gateway hands on in
		// requestContext.authorizer (principalId alone is not in every
		// integration's mapping variables).
		Context: map[string]any{"sub": p.Subject},
	}
}
