package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/plant"
)

// The error codes of docs/design.md ("Errors").
const (
	CodeBadJSON          = 40001
	CodeContentType      = 40002
	CodeTooLarge         = 40003
	CodeMissingField     = 40004
	CodeWrongType        = 40005
	CodeBadValue         = 40006
	CodeConflict         = 40009
	CodeUnauthorized     = 40100
	CodeForbidden        = 40300
	CodeNotFound         = 40400
	CodeMethodNotAllowed = 40500
	CodeInternal         = 50000
	CodeUnavailable      = 50300
)

// apiError is a failure decided in this package, already in its final shape.
type apiError struct {
	status  int
	code    int32
	message string
	// challenge is the WWW-Authenticate value of a 401 or 403 (RFC 6750).
	challenge string
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %d: %s", e.status, e.code, e.message) }

func badJSON(message string) error {
	return &apiError{status: http.StatusBadRequest, code: CodeBadJSON, message: message}
}

var (
	errContentType      = &apiError{status: http.StatusBadRequest, code: CodeContentType, message: "Content-Type must be application/json"}
	errTooLarge         = &apiError{status: http.StatusBadRequest, code: CodeTooLarge, message: fmt.Sprintf("the body must be at most %d bytes", MaxBodyBytes)}
	errNotFound         = &apiError{status: http.StatusNotFound, code: CodeNotFound, message: "no such route; the API has POST /plants"}
	errMethodNotAllowed = &apiError{status: http.StatusMethodNotAllowed, code: CodeMethodNotAllowed, message: "method not allowed; /plants takes POST"}
)

// faultCodes maps a validation fault to its error code.
var faultCodes = map[plant.Fault]int32{
	plant.Missing:   CodeMissingField,
	plant.WrongType: CodeWrongType,
	plant.BadValue:  CodeBadValue,
}

// errorFor is the one mapping from an error to what the client sees. Nothing
// of an unexpected error's text reaches the client.
func errorFor(err error) *apiError {
	if e, ok := errors.AsType[*apiError](err); ok {
		return e
	}
	if ve, ok := errors.AsType[*plant.ValidationError](err); ok {
		return &apiError{status: http.StatusBadRequest, code: faultCodes[ve.Fault()], message: ve.Error()}
	}
	switch {
	case errors.Is(err, plant.ErrExists):
		return &apiError{status: http.StatusBadRequest, code: CodeConflict, message: "a plant with this id already exists with a different name or tag"}
	case errors.Is(err, auth.ErrNoToken):
		return &apiError{status: http.StatusUnauthorized, code: CodeUnauthorized, message: "a bearer token is required", challenge: `Bearer`}
	case errors.Is(err, auth.ErrInvalidToken):
		return &apiError{status: http.StatusUnauthorized, code: CodeUnauthorized, message: "the bearer token is invalid or expired", challenge: `Bearer error="invalid_token"`}
	case errors.Is(err, auth.ErrInsufficientScope):
		return &apiError{status: http.StatusForbidden, code: CodeForbidden, message: "the bearer token lacks the required scope", challenge: `Bearer error="insufficient_scope"`}
	case errors.Is(err, plant.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return &apiError{status: http.StatusServiceUnavailable, code: CodeUnavailable, message: "the store is unavailable; try again shortly"}
	}
	return &apiError{status: http.StatusInternalServerError, code: CodeInternal, message: "internal error"}
}

// statusClientClosedRequest is what the log line of a request shows when its
// client went away before the answer (nginx's 499): not a server fault.
const statusClientClosedRequest = 499

// writeError answers err and records it for the request's log line. A
// request canceled because its client went away (closed or half-closed its
// connection) is logged at info as "canceled", never as a 5xx; nobody reads
// its answer.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		if info := infoFrom(r.Context()); info != nil {
			info.outcome = "canceled"
		}
		w.WriteHeader(statusClientClosedRequest)
		return
	}
	e := errorFor(err)
	if e.challenge != "" {
		w.Header().Set("WWW-Authenticate", e.challenge)
	}
	if e.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	if info := infoFrom(r.Context()); info != nil {
		info.code = e.code
		if e.status >= 500 {
			info.err = err
		}
	}
	writeJSON(w, e.status, errorBody{Error: e.code, Message: e.message})
}
