package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/plant"
)

// The error codes of DESIGN.md section 3.
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
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %d: %s", e.status, e.code, e.message) }

func badJSON(message string) error { return &apiError{http.StatusBadRequest, CodeBadJSON, message} }

var (
	errContentType      = &apiError{http.StatusBadRequest, CodeContentType, "Content-Type must be application/json"}
	errTooLarge         = &apiError{http.StatusBadRequest, CodeTooLarge, fmt.Sprintf("the body must be at most %d bytes", MaxBodyBytes)}
	errNotFound         = &apiError{http.StatusNotFound, CodeNotFound, "no such route; the API has POST /plants"}
	errMethodNotAllowed = &apiError{http.StatusMethodNotAllowed, CodeMethodNotAllowed, "method not allowed; /plants takes POST"}
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
		return &apiError{http.StatusBadRequest, faultCodes[ve.Fault()], ve.Error()}
	}
	switch {
	case errors.Is(err, plant.ErrExists):
		return &apiError{http.StatusBadRequest, CodeConflict, "a plant with this id already exists with a different name or tag"}
	case errors.Is(err, auth.ErrNoToken):
		return &apiError{http.StatusUnauthorized, CodeUnauthorized, "a bearer token is required"}
	case errors.Is(err, auth.ErrInvalidToken):
		return &apiError{http.StatusUnauthorized, CodeUnauthorized, "the bearer token is invalid or expired"}
	case errors.Is(err, auth.ErrInsufficientScope):
		return &apiError{http.StatusForbidden, CodeForbidden, "the bearer token lacks the required scope"}
	case errors.Is(err, plant.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return &apiError{http.StatusServiceUnavailable, CodeUnavailable, "the store is unavailable; try again shortly"}
	}
	return &apiError{http.StatusInternalServerError, CodeInternal, "internal error"}
}

// writeError answers err and records it for the request's log line.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := errorFor(err)
	switch {
	case errors.Is(err, auth.ErrNoToken):
		w.Header().Set("WWW-Authenticate", `Bearer`)
	case errors.Is(err, auth.ErrInvalidToken):
		w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token"`)
	case errors.Is(err, auth.ErrInsufficientScope):
		w.Header().Set("WWW-Authenticate", `Bearer error="insufficient_scope"`)
	case e.status == http.StatusServiceUnavailable:
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
