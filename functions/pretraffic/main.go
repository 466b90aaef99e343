// Command pretraffic is the CodeDeploy PreTraffic hook of both functions: it
// proves a new version before any client reaches it. It invokes the new
// createplant version with an event that writes nothing and needs no secret
// (a body that is not JSON, which must answer 400/40001 in the Error
// shape) and the new authorizer version with a malformed token (which must
// answer "Unauthorized"), then reports Succeeded or Failed to CodeDeploy
// with PutLifecycleEventHookExecutionStatus. A version that fails its init,
// panics or answers wrongly never receives traffic; a hook that cannot decide
// (its own error, a timeout) reports Failed rather than leaving CodeDeploy
// waiting for an hour.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	cdtypes "github.com/aws/aws-sdk-go-v2/service/codedeploy/types"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/plantstore/plantstore/functions/internal/lambdainit"
)

func main() {
	logger, err := lambdainit.Logger(os.Stdout, os.Getenv("LOG_LEVEL"))
	slog.SetDefault(logger)
	if err == nil {
		var h *hook
		if h, err = newHook(context.Background(), os.Getenv, logger); err == nil {
			lambda.Start(h.handle)
		}
	}
	lambdainit.Fail(logger, os.Getenv("AWS_LAMBDA_RUNTIME_API"), err)
	os.Exit(1)
}

// malformedToken passes the gateway's validation expression but is no JWT:
// every good authorizer refuses it.
const malformedToken = "Bearer pre.traffic.check" // #nosec G101 -- deliberately not a credential

// reportMargin is kept free before the hook's own deadline for the report.
const reportMargin = 3 * time.Second

// config is the hook's environment (template.yaml declares each).
type config struct {
	createPlant string // the createplant version to prove: its ARN (or, locally, its name)
	authorizer  string // the authorizer version to prove
	methodARN   string // a method ARN of this stack's form, for the authorizer's event
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{createPlant: getenv("CREATEPLANT_VERSION"), authorizer: getenv("AUTHORIZER_VERSION"), methodARN: getenv("METHOD_ARN")}
	if c.createPlant == "" || c.authorizer == "" || c.methodARN == "" {
		return c, errors.New("CREATEPLANT_VERSION, AUTHORIZER_VERSION and METHOD_ARN are required")
	}
	return c, nil
}

// invoker and reporter are the parts of the Lambda and CodeDeploy clients
// the hook uses.
type invoker interface {
	Invoke(ctx context.Context, in *awslambda.InvokeInput, opts ...func(*awslambda.Options)) (*awslambda.InvokeOutput, error)
}

type reporter interface {
	PutLifecycleEventHookExecutionStatus(ctx context.Context, in *codedeploy.PutLifecycleEventHookExecutionStatusInput, opts ...func(*codedeploy.Options)) (*codedeploy.PutLifecycleEventHookExecutionStatusOutput, error)
}

type hook struct {
	cfg    config
	lambda invoker
	deploy reporter
	logger *slog.Logger
}

// newHook makes the clients once. config.LoadDefaultConfig reads the
// region, the role's credentials and the SDK's endpoint variables
// (AWS_ENDPOINT_URL_LAMBDA, AWS_ENDPOINT_URL_CODEDEPLOY), which the tests
// point at make start-lambda's server and a recorder.
func newHook(ctx context.Context, getenv func(string) string, logger *slog.Logger) (*hook, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("AWS configuration: %w", err)
	}
	return &hook{cfg: cfg, lambda: awslambda.NewFromConfig(awsCfg), deploy: codedeploy.NewFromConfig(awsCfg), logger: logger}, nil
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

// prove runs both checks; the first failure is the answer.
func (h *hook) prove(ctx context.Context) error {
	if err := h.proveCreatePlant(ctx); err != nil {
		return fmt.Errorf("createplant %s: %w", h.cfg.createPlant, err)
	}
	if err := h.proveAuthorizer(ctx); err != nil {
		return fmt.Errorf("authorizer %s: %w", h.cfg.authorizer, err)
	}
	return nil
}

// proveCreatePlant sends a body that is not JSON, from an admitted
// principal, and wants 400 with the Error {"error": 40001, ...}: the
// function started, routed, read the body and answered in the contract's
// shape, and nothing was written.
func (h *hook) proveCreatePlant(ctx context.Context) error {
	ev := events.APIGatewayProxyRequest{
		Resource: "/plants", Path: "/plants", HTTPMethod: "POST",
		Headers:           map[string]string{"Content-Type": "application/json"},
		MultiValueHeaders: map[string][]string{"Content-Type": {"application/json"}},
		Body:              "pre-traffic check: not JSON",
		RequestContext: events.APIGatewayProxyRequestContext{
			Stage: "v1", HTTPMethod: "POST", ResourcePath: "/plants", RequestID: "pre-traffic",
			Authorizer: map[string]any{"principalId": "pre-traffic-hook"},
		},
	}
	var resp events.APIGatewayProxyResponse
	if err := h.invoke(ctx, h.cfg.createPlant, ev, &resp); err != nil {
		return err
	}
	var body struct {
		Error   int32  `json:"error"`
		Message string `json:"message"`
	}
	if resp.StatusCode != 400 || json.Unmarshal([]byte(resp.Body), &body) != nil || body.Error != 40001 || body.Message == "" {
		return fmt.Errorf("a body that is not JSON got %d %q, want 400 with error 40001", resp.StatusCode, resp.Body)
	}
	return nil
}

// proveAuthorizer sends a malformed token and wants the error
// "Unauthorized", the one answer that API Gateway turns into a 401.
func (h *hook) proveAuthorizer(ctx context.Context) error {
	ev := events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: malformedToken, MethodArn: h.cfg.methodARN}
	var doc struct {
		ErrorMessage string `json:"errorMessage"`
	}
	err := h.invoke(ctx, h.cfg.authorizer, ev, &doc)
	var fe *functionError
	if !errors.As(err, &fe) {
		if err == nil {
			return errors.New("a malformed token got a policy, want Unauthorized")
		}
		return err
	}
	if json.Unmarshal(fe.payload, &doc) != nil || doc.ErrorMessage != "Unauthorized" {
		return fmt.Errorf("a malformed token got the error %s, want Unauthorized", fe.payload)
	}
	return nil
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
