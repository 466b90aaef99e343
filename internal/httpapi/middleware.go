package httpapi

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net/http"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
)

// Verifier checks the Authorization header of a request.
type Verifier interface {
	VerifyHeader(ctx context.Context, header string) (auth.Principal, error)
}

// RequireToken lets a request through only with a token that v accepts, and
// answers 401 or 403 otherwise. The local server uses it; on AWS the gateway's
// authorizer does this job.
func RequireToken(v Verifier) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := v.VerifyHeader(r.Context(), r.Header.Get("Authorization"))
			if err != nil {
				writeError(w, r, err)
				return
			}
			noteSubject(r, p)
			next.ServeHTTP(w, r)
		})
	}
}

// RequirePrincipal lets a request through only when principalOf finds the
// principal that an authorizer in front (API Gateway's) admitted, and answers
// 401 otherwise: a function reached without its authorizer serves nobody.
func RequirePrincipal(principalOf func(*http.Request) (auth.Principal, bool)) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, ok := principalOf(r)
			if !ok || p.Subject == "" {
				writeError(w, r, auth.ErrNoToken)
				return
			}
			noteSubject(r, p)
			next.ServeHTTP(w, r)
		})
	}
}

// noteSubject records whom the request was admitted for, for its log line.
func noteSubject(r *http.Request, p auth.Principal) {
	if info := infoFrom(r.Context()); info != nil {
		info.subject = p.Subject
	}
}

type requestIDKey struct{}

type logAttrsKey struct{}

// WithLogAttrs returns ctx carrying attrs, which the request's log line
// shows after its own (a Lambda adapter's correlation ids, say).
func WithLogAttrs(ctx context.Context, attrs ...slog.Attr) context.Context {
	if len(attrs) == 0 {
		return ctx
	}
	return context.WithValue(ctx, logAttrsKey{}, attrs)
}

// WithRequestID returns ctx carrying id, which the request's log line shows.
// Without one, a random id is made for each request.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// requestInfo collects what the one log line of a request says.
type requestInfo struct {
	subject string
	outcome string
	code    int32
	err     error // the cause of a 5xx; logged, never answered
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(infoKey{}).(*requestInfo)
	return info
}

type statusRecorder struct {
	http.ResponseWriter
	status int
}

func (s *statusRecorder) WriteHeader(status int) {
	s.status = status
	s.ResponseWriter.WriteHeader(status)
}

// The request line: its message and the attributes that code outside this
// package reads back (createplant's metrics). A rename here is a rename there.
const (
	LogMessage  = "request"
	LogCode     = "code"       // the Error code of a failure (int)
	LogOutcome  = "outcome"    // created or replayed, for a 200 (string)
	LogDuration = "durationMs" // the request's milliseconds (float64)
	LogRequest  = "requestId"  // the request's id, x-amzn-RequestId (string)
)

// The local API's step lines (cmd/localapi, at LOG_LEVEL=debug): its token
// check and its store call, each logged as it ends with the request's id
// (LogRequest), its milliseconds (LogDuration) and LogOutcome. make run
// TRACE=1 (tools/trace) reads them back into the request's steps; writer and
// reader share these names.
const (
	StepToken   = "token"   // outcome accepted, with StepSubject, or refused, with StepReason
	StepStore   = "store"   // StepOp; outcome created, replayed, exists, unavailable or failed, with StepError
	StepSubject = "subject" // the token's subject (string)
	StepReason  = "reason"  // why a token was refused, auth.Reason (string)
	StepOp      = "op"      // the store's method (string)
	StepError   = "error"   // the store's error (string)
)

// logRequests writes one JSON line per request: never the token, never the body.
func logRequests(logger *slog.Logger, now func() time.Time, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := now()
		id, _ := r.Context().Value(requestIDKey{}).(string)
		if id == "" {
			id = newRequestID()
		}
		info := &requestInfo{}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))

		attrs := []slog.Attr{
			slog.String(LogRequest, id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", rec.status),
			slog.Float64(LogDuration, float64(now().Sub(start).Microseconds())/1000),
		}
		if extra, ok := r.Context().Value(logAttrsKey{}).([]slog.Attr); ok {
			attrs = append(attrs, extra...)
		}
		if info.subject != "" {
			attrs = append(attrs, slog.String("subject", info.subject))
		}
		if info.outcome != "" {
			attrs = append(attrs, slog.String(LogOutcome, info.outcome))
		}
		level := slog.LevelInfo
		if info.code != 0 {
			attrs = append(attrs, slog.Int(LogCode, int(info.code)))
		}
		if info.err != nil {
			level = slog.LevelError
			attrs = append(attrs, slog.String("error", info.err.Error()))
		}
		logger.LogAttrs(r.Context(), level, LogMessage, attrs...)
	})
}

func newRequestID() string { return rand.Text() }
