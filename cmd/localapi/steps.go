package main

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
)

// Each answer names its request id in x-amzn-RequestId, as API Gateway's
// answers do ("API Gateway returns this request ID in the x-amzn-RequestId
// response header": the REST API guide, CloudWatch logging); it is the
// requestId of the request's log lines. At
// LOG_LEVEL=debug the token check and the store call each log a step line
// of their own (httpapi.StepToken, httpapi.StepStore) with that id and their
// durationMs, which make run TRACE=1 (tools/trace) joins into the request's
// steps.
const requestIDHeader = "x-amzn-RequestId" // as API Gateway spells it

type requestIDKey struct{}

// withRequest gives each request its id and bounds its store work: past d
// the handler answers 503.
func withRequest(d time.Duration, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := rand.Text()
		w.Header()[requestIDHeader] = []string{id}
		ctx, cancel := context.WithTimeout(context.WithValue(httpapi.WithRequestID(r.Context(), id), requestIDKey{}, id), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// stepAttrs are the attributes every step line starts with.
func stepAttrs(ctx context.Context, start time.Time) []slog.Attr {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return []slog.Attr{
		slog.String(httpapi.LogRequest, id),
		slog.Float64(httpapi.LogDuration, float64(time.Since(start).Microseconds())/1000),
	}
}

// loggedVerifier logs each token check at debug level: accepted with its
// subject, or refused with its reason (auth.Reason), never the token.
type loggedVerifier struct {
	next httpapi.Verifier
	log  *slog.Logger
}

func (v loggedVerifier) VerifyHeader(ctx context.Context, header string) (auth.Principal, error) {
	if !v.log.Enabled(ctx, slog.LevelDebug) {
		return v.next.VerifyHeader(ctx, header)
	}
	start := time.Now()
	p, err := v.next.VerifyHeader(ctx, header)
	attrs := stepAttrs(ctx, start)
	if err != nil {
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "refused"), slog.String(httpapi.StepReason, auth.Reason(err)))
	} else {
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "accepted"), slog.String(httpapi.StepSubject, p.Subject))
	}
	v.log.LogAttrs(ctx, slog.LevelDebug, httpapi.StepToken, attrs...)
	return p, err
}

// loggedStore logs each store call at debug level with its outcome:
// created, replayed, exists (a different plant holds the id), unavailable
// or failed, with the error of the last two.
type loggedStore struct {
	next plant.Store
	log  *slog.Logger
}

func (s loggedStore) Create(ctx context.Context, p plant.NewPlant) (bool, error) {
	if !s.log.Enabled(ctx, slog.LevelDebug) {
		return s.next.Create(ctx, p)
	}
	start := time.Now()
	created, err := s.next.Create(ctx, p)
	attrs := append(stepAttrs(ctx, start), slog.String(httpapi.StepOp, "Create"))
	switch {
	case err == nil && created:
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "created"))
	case err == nil:
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "replayed"))
	case errors.Is(err, plant.ErrExists):
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "exists"))
	case errors.Is(err, plant.ErrUnavailable):
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "unavailable"), slog.String(httpapi.StepError, err.Error()))
	default:
		attrs = append(attrs, slog.String(httpapi.LogOutcome, "failed"), slog.String(httpapi.StepError, err.Error()))
	}
	s.log.LogAttrs(ctx, slog.LevelDebug, httpapi.StepStore, attrs...)
	return created, err
}
