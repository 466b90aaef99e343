// Command createplant is the Lambda function behind POST /plants: the
// httpapi handler on DynamoDB, adapted to API Gateway REST proxy events.
package main

import (
	"context"
	"encoding/base64"
	"errors"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/awslabs/aws-lambda-go-api-proxy/core"
	"github.com/awslabs/aws-lambda-go-api-proxy/httpadapter"

	"github.com/plantstore/plantstore/functions/internal/emf"
	"github.com/plantstore/plantstore/functions/internal/lambdainit"
	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
)

func main() {
	lambdainit.Main(lambdainit.Function[*function]{
		// The one line per request carries its metrics (EMF) when the stack
		// names a namespace; metrics of two stacks never mix.
		Logs: func(h slog.Handler) slog.Handler {
			return emf.NewHandler(h, requestMetrics(os.Getenv("METRICS_NAMESPACE")))
		},
		New:     newFunction,
		Handler: func(fn *function) any { return fn.handle },
	})
}

// deadlineMargin is kept free before the function's own deadline, so that a
// slow store ends in a 503 answer rather than a killed invocation.
const deadlineMargin = 500 * time.Millisecond

// config is the function's environment (docs/design.md, "Configuration"), read once.
type config struct {
	tableName string
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{tableName: getenv("TABLE_NAME")}
	if c.tableName == "" {
		return c, errors.New("TABLE_NAME is required")
	}
	return c, nil
}

// function is the initialised Lambda: everything built once per cold start.
type function struct {
	adapter *httpadapter.HandlerAdapter
	logger  *slog.Logger
}

// newFunction builds the function from the environment: the DynamoDB client
// is made here, once, never per request.
func newFunction(ctx context.Context, getenv func(string) string, logger *slog.Logger) (*function, error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	client, err := dynamo.NewClientFromEnv(getenv)
	if err != nil {
		return nil, err
	}
	store := dynamo.New(client, cfg.tableName, time.Now)
	return newFunctionWithStore(store, logger), nil
}

func newFunctionWithStore(store plant.Store, logger *slog.Logger) *function {
	h := httpapi.NewHandler(store, logger, httpapi.RequirePrincipal(gatewayPrincipal))
	return &function{adapter: httpadapter.New(h), logger: logger}
}

// gatewayPrincipal is the principal that the TOKEN authorizer admitted, as
// API Gateway passes it in the request context.
func gatewayPrincipal(r *http.Request) (auth.Principal, bool) {
	gw, ok := core.GetAPIGatewayContextFromContext(r.Context())
	if !ok {
		return auth.Principal{}, false
	}
	sub, _ := gw.Authorizer["principalId"].(string)
	return auth.Principal{Subject: sub}, sub != ""
}

// handle serves one REST API proxy event.
func (f *function) handle(ctx context.Context, event events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
	if lc, ok := lambdacontext.FromContext(ctx); ok {
		ctx = httpapi.WithRequestID(ctx, lc.AwsRequestID)
	}
	// One request followed end to end: the gateway's request id (in its
	// access log as $context.requestId) and the X-Ray trace beside Lambda's.
	var ids []slog.Attr
	if id := event.RequestContext.RequestID; id != "" {
		ids = append(ids, slog.String("apiRequestId", id))
	}
	if trace, _ := ctx.Value("x-amzn-trace-id").(string); trace != "" { // aws-lambda-go's key for Lambda-Runtime-Trace-Id
		ids = append(ids, slog.String("traceId", trace))
	}
	ctx = httpapi.WithLogAttrs(ctx, ids...)
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-deadlineMargin))
		defer cancel()
	}
	if !convertible(event) {
		f.logger.WarnContext(ctx, "unreadable event", "error", "its method, path or domain do not make an HTTP request")
		return unreadable(), nil
	}
	if event.IsBase64Encoded { // decoded here, once: the adapter would log a failure as plain text
		body, err := base64.StdEncoding.DecodeString(event.Body)
		if err != nil {
			return unreadable(), nil
		}
		event.Body, event.IsBase64Encoded = string(body), false
	}
	resp, err := f.adapter.ProxyWithContext(ctx, event)
	if err != nil { // the event could not become a request
		f.logger.WarnContext(ctx, "unreadable event", "error", err.Error())
		return unreadable(), nil
	}
	return resp, nil
}

// convertible reports whether the adapter can turn event into a request. It
// builds the request line as core.RequestAccessor.EventToRequest does
// ("https://" + domainName + path, the method upper-cased) and asks
// http.NewRequest, which refuses a method that is not a token and a URL with
// control characters or spaces. An event it would refuse never reaches the
// adapter, which prints such a failure raw to stdout, newlines included
// (fmt.Printf "Could not convert request ..."), breaking the one JSON object
// per line that the function's log is.
func convertible(event events.APIGatewayProxyRequest) bool {
	path := event.Path
	if !strings.HasPrefix(path, "/") {
		path = "/" + path
	}
	_, err := http.NewRequest(strings.ToUpper(event.HTTPMethod), "https://"+event.RequestContext.DomainName+path, nil)
	return err == nil
}

// unreadable is the answer to an event that is not an HTTP request, written
// by the handler's own error writer through the adapter's response writer.
func unreadable() events.APIGatewayProxyResponse {
	w := core.NewProxyResponseWriter()
	httpapi.WriteUnreadable(w, &http.Request{})
	resp, err := w.GetProxyResponse()
	if err != nil { // only when nothing was written, which WriteUnreadable always does
		return events.APIGatewayProxyResponse{StatusCode: http.StatusBadRequest}
	}
	return resp
}
