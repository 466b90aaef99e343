package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// integrate sends the route's event to its function and writes its answer,
// with the API's CORS headers; a failed or malformed answer is the 502 that
// API Gateway gives a Lambda proxy integration that did not answer.
func (g *Gateway) integrate(w http.ResponseWriter, req *request, cors *samtemplate.Cors) {
	a, route := req.api, req.route
	if route.Function == "" {
		// SAM CLI's FunctionNotFound (SER lambda_not_found_response).
		g.logger.Error("no function serves the route", "route", route.Key(), "api", a.ID, "why", route.Unserved)
		g.respondStatus(w, a, "DEFAULT_5XX", http.StatusBadGateway, "No function defined for resource method")
		return
	}
	var ev any
	var ok bool
	v2 := a.HTTP && route.PayloadVersion == "2.0"
	switch {
	case route.PayloadVersion != "1.0" && route.PayloadVersion != "2.0":
		// PayloadFormatVersionValidateException in LAS _generate_lambda_event.
		g.logger.Error("the route's payload format version is neither 1.0 nor 2.0", "route", route.Key(), "version", route.PayloadVersion)
		g.respondStatus(w, a, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
		return
	case v2:
		ev, ok = req.v2()
	default:
		ev, ok = req.v1(a.HTTP)
	}
	if !ok {
		g.logger.Warn("the request's body is not UTF-8 text and not binary for the API", "route", route.Key())
		g.respondStatus(w, a, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
		return
	}
	payload, err := json.Marshal(ev)
	if err != nil {
		g.respond(w, a, "DEFAULT_5XX", "Internal server error")
		return
	}
	// Lambda refuses an event over its quota (413
	// RequestEntityTooLargeException) before the function runs, and a REST
	// API then answers the client 413 {"message": "Request Too Long"}, with
	// x-amzn-ErrorType BadRequestException and a REST API's x-amz-apigw-id:
	// observed on a deployed API in koki-develop/lgtm-generator#10 (2021),
	// beside the different 413 past the 10 MB quota. That status and message
	// are the REQUEST_TOO_LARGE gateway response's, so it is answered as that
	// type, as past MaxPayload: the template's REQUEST_TOO_LARGE where it
	// defines one (the report does not show a customised one here; every
	// other response of a type follows the template). Lambda's guide
	// ("Handling Lambda errors with an API Gateway API") says more generally
	// that an invocation the Lambda API rejects is a 500; for this rejection
	// the observed answer is the 413.
	if len(payload) > MaxInvokePayload {
		g.logger.Warn("proxy event over Lambda's invoke payload quota; the function is not invoked", "function", route.Function, "bytes", len(payload))
		g.respond(w, a, "REQUEST_TOO_LARGE", "Request Too Long")
		return
	}
	timeout := g.IntegrationTimeout
	if a.HTTP && timeout == IntegrationTimeout {
		timeout = HTTPIntegrationTimeout
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(req.r.Context()), timeout)
	defer cancel()
	raw, failed, err := g.invoker.Invoke(ctx, route.Function, payload)
	if ctx.Err() != nil {
		g.logger.Error("integration timed out", "function", route.Function, "timeout", timeout.String())
		g.respond(w, a, "INTEGRATION_TIMEOUT", "Endpoint request timed out")
		return
	}
	if err != nil || failed {
		g.logger.Error("integration failed", "function", route.Function, "error", fmt.Sprint(err), "answer", string(raw))
		g.respondStatus(w, a, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
		return
	}
	var ans reply
	if v2 {
		ans, err = readV2(raw)
	} else {
		ans, err = readV1(raw, a.HTTP, a.BinaryMediaTypes, req.r.Header.Get("Accept"))
	}
	if err != nil {
		g.logger.Error("malformed Lambda proxy response", "function", route.Function, "error", err.Error())
		g.respondStatus(w, a, "DEFAULT_5XX", http.StatusBadGateway, "Internal server error")
		return
	}
	h := w.Header()
	for k, vs := range ans.header {
		h[k] = vs
	}
	// The API's CORS headers replace the function's (LAS _request_handler
	// updates the answer's headers with them last).
	for k, v := range corsHeaders(cors, a.HTTP, req.r.Header.Get("Origin")) {
		h.Set(k, v)
	}
	w.WriteHeader(ans.status)
	_, _ = w.Write(ans.body)
}
