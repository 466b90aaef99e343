// InvokeAPI serves the Lambda Invoke API (2015-03-31) on loopback,
// as `sam local start-lambda` serves it, in front of functions run by
// Functions, so that `aws lambda invoke --endpoint-url` and the
// Go SDK with AWS_ENDPOINT_URL_LAMBDA reach the real bootstraps without
// Docker. The routes, checks, headers and error bodies follow SAM CLI's
// samcli/local/lambda_service/local_lambda_http_service.py and
// lambda_error_responses.py (aws-sam-cli fe8f8db, 2026-07-22), and its
// function-name rule samcli/lib/utils/name_utils.py; it never ships.

package lambdaemu

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"
)

// Invoker calls a function with payload: its answer, or its error document
// with failed set. Functions is one.
type Invoker interface {
	Invoke(ctx context.Context, function string, payload []byte) (answer []byte, failed bool, err error)
}

// maxPayload is Lambda's limit for a synchronous invocation's request, 6 MB.
const maxPayload = 6 << 20

// asyncTimeout bounds an Event invocation, which no caller waits for.
const asyncTimeout = 15 * time.Minute

var invocations = regexp.MustCompile(`^/2015-03-31/functions/([^/]+)/invocations$`)

// InvokeAPI is the Invoke API over the functions it was given.
type InvokeAPI struct {
	fns    Invoker
	known  map[string]bool
	logger *slog.Logger
}

// NewInvokeAPI serves functions (logical ids of template.yaml) through fns.
func NewInvokeAPI(fns Invoker, functions []string, logger *slog.Logger) *InvokeAPI {
	h := &InvokeAPI{fns: fns, known: map[string]bool{}, logger: logger}
	for _, f := range functions {
		h.known[f] = true
	}
	return h
}

func (h *InvokeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m := invocations.FindStringSubmatch(r.URL.Path)
	switch {
	case m == nil:
		writeError(w, http.StatusNotFound, "PathNotFoundLocally", "LocalService", "PathNotFoundException")
		return
	case r.Method != http.MethodPost:
		writeError(w, http.StatusMethodNotAllowed, "MethodNotAllowedLocally", "LocalService", "MethodNotAllowedException")
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxPayload+1))
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", "User", "Could not read the request body")
		return
	case len(body) > maxPayload:
		writeError(w, http.StatusRequestEntityTooLarge, "RequestEntityTooLargeException", "User", fmt.Sprintf("Request must be smaller than %d bytes for the InvokeFunction operation", maxPayload))
		return
	case len(body) == 0:
		body = []byte("{}")
	}
	if !json.Valid(body) {
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", "User", "Could not parse request body into json: No JSON object could be decoded")
		return
	}
	if r.URL.RawQuery != "" {
		writeError(w, http.StatusBadRequest, "InvalidRequestContent", "User", "Query Parameters are not supported")
		return
	}
	if lt := r.Header.Get("X-Amz-Log-Type"); lt != "" && lt != "None" {
		writeError(w, http.StatusNotImplemented, "NotImplemented", "LocalService", fmt.Sprintf("log-type: %s is not supported. None is only supported.", lt))
		return
	}
	name := FunctionName(m[1])
	if !h.known[name] {
		writeError(w, http.StatusNotFound, "ResourceNotFound", "User", "Function not found: arn:aws:lambda:us-west-2:012345678901:function:"+name)
		return
	}
	switch it := r.Header.Get("X-Amz-Invocation-Type"); it {
	case "", "RequestResponse":
	case "Event":
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), asyncTimeout)
			defer cancel()
			if _, _, err := h.fns.Invoke(ctx, name, body); err != nil {
				h.logger.Error("event invocation failed", "function", name, "error", err.Error())
			}
		}()
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		return
	default:
		writeError(w, http.StatusNotImplemented, "NotImplemented", "LocalService", fmt.Sprintf("invocation-type: %s is not supported. Only Event and RequestResponse are supported.", it))
		return
	}
	answer, failed, err := h.fns.Invoke(context.WithoutCancel(r.Context()), name, body)
	if err != nil {
		h.logger.Error("invocation failed", "function", name, "error", err.Error())
		writeError(w, http.StatusInternalServerError, "Service", "Service", "ServiceException")
		return
	}
	hdr := w.Header()
	hdr.Set("Content-Type", "application/json")
	hdr.Set("X-Amz-Executed-Version", "$LATEST")
	if failed {
		hdr.Set("X-Amz-Function-Error", "Unhandled")
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(answer)
}

// FunctionName is the function a name, a name with a qualifier, a partial
// ARN (ACCOUNT:function:NAME) or a full ARN names, as SAM CLI's
// normalize_lambda_function_name reads it: NAME.
func FunctionName(id string) string {
	if strings.HasPrefix(id, "arn:") {
		parts := strings.SplitN(id, ":", 7) // arn, partition, lambda, region, account, function, NAME[:qualifier]
		if len(parts) == 7 && parts[2] == "lambda" && parts[5] == "function" {
			id = parts[6]
		}
	} else if _, rest, ok := strings.Cut(id, ":function:"); ok {
		id = rest
	}
	name, _, _ := strings.Cut(id, ":")
	return name
}

// Refuse answers a request that make start-lambda does not serve (one a web
// page may have sent; devserver.LoopbackOnly says which) as Lambda answers
// a caller it does not allow: 403 AccessDeniedException (Lambda's answer to
// a caller without lambda:InvokeFunction: "Status Code: 403; Error Code:
// AccessDeniedException", awslabs/aws-deployment-framework#460). SAM CLI's
// lambda_error_responses.py has no 403 of its own to copy: it refuses
// nobody.
func Refuse(w http.ResponseWriter, reason string) {
	writeError(w, http.StatusForbidden, "AccessDeniedException", "User", "make start-lambda answers only programs and pages of this machine: "+reason)
}

// writeError answers as SAM CLI's LambdaErrorResponses do: the error type
// in x-amzn-errortype and {"Type": ..., "Message": ...}.
func writeError(w http.ResponseWriter, status int, errorType, kind, message string) {
	body, _ := json.Marshal(map[string]string{"Type": kind, "Message": message})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", errorType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
