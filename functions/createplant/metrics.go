package main

import (
	"log/slog"
	"time"

	"github.com/plantstore/plantstore/functions/internal/emf"
	"github.com/plantstore/plantstore/internal/httpapi"
)

// outcomes names each answer of createplant for its metrics, by error code
// (docs/design.md, "Errors"): few and fixed, so a dimension of low
// cardinality. 200s are "created" or "replayed", as the handler says.
var outcomes = map[int64]string{
	httpapi.CodeBadJSON: "invalid_json", httpapi.CodeContentType: "unsupported_media_type", httpapi.CodeTooLarge: "too_large",
	httpapi.CodeMissingField: "missing_field", httpapi.CodeWrongType: "wrong_type", httpapi.CodeBadValue: "invalid_value",
	httpapi.CodeConflict: "conflict", httpapi.CodeUnauthorized: "unauthorized", httpapi.CodeForbidden: "forbidden",
	httpapi.CodeNotFound: "not_found", httpapi.CodeMethodNotAllowed: "method_not_allowed",
	httpapi.CodeUnavailable: "store_unavailable", httpapi.CodeInternal: "failure",
}

// requestDirectives are createplant's metrics: Requests by Outcome (the
// dashboard) and for the stack; Duration, StoreUnavailable and Failures for
// the stack (the alarms, each apart). tools/samtemplate's tests read these
// literals to check that the alarms and the dashboard name metrics that exist.
var requestDirectives = []emf.Directive{
	emf.Directive{Dimensions: [][]string{{"Outcome"}, {}}, Metrics: []string{"Requests"}},
	emf.Directive{Dimensions: [][]string{{}}, Metrics: []string{"Duration", "StoreUnavailable", "Failures"}},
}

// requestMetrics makes the EMF members of createplant's one line per
// request, read from the attributes httpapi writes (its Log* names).
func requestMetrics(namespace string) func(slog.Record) []slog.Attr {
	return func(r slog.Record) []slog.Attr {
		if namespace == "" || r.Message != httpapi.LogMessage {
			return nil
		}
		var code int64
		var outcome string
		var duration float64
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case httpapi.LogCode:
				code = a.Value.Int64()
			case httpapi.LogOutcome:
				outcome = a.Value.String()
			case httpapi.LogDuration:
				duration = a.Value.Float64()
			}
			return true
		})
		if code != 0 {
			outcome = outcomes[code]
		}
		if outcome == "" {
			outcome = "other"
		}
		return emf.Attrs(namespace, r.Time.Round(time.Millisecond), map[string]string{"Outcome": outcome},
			[]emf.Metric{
				{Name: "Requests", Unit: emf.Count, Value: 1},
				{Name: "Duration", Unit: emf.Milliseconds, Value: duration},
				{Name: "StoreUnavailable", Unit: emf.Count, Value: emf.Once(code == httpapi.CodeUnavailable)},
				{Name: "Failures", Unit: emf.Count, Value: emf.Once(code == httpapi.CodeInternal)},
			}, requestDirectives...)
	}
}
