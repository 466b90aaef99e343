package main

import (
	"log/slog"
	"time"

	"github.com/plantstore/plantstore/functions/internal/emf"
)

// outcomes names each answer of createplant for its metrics, by error code
// (docs/design.md, "Errors"): few and fixed, so a dimension of low
// cardinality. 200s are "created" or "replayed", as the handler says.
var outcomes = map[int64]string{
	40001: "invalid_json", 40002: "unsupported_media_type", 40003: "too_large",
	40004: "missing_field", 40005: "wrong_type", 40006: "invalid_value", 40009: "conflict",
	40100: "unauthorized", 40300: "forbidden", 40400: "not_found", 40500: "method_not_allowed",
	50300: "store_unavailable", 50000: "failure",
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
// request ("request", written by httpapi).
func requestMetrics(namespace string) func(slog.Record) []slog.Attr {
	return func(r slog.Record) []slog.Attr {
		if namespace == "" || r.Message != "request" {
			return nil
		}
		var code int64
		var outcome string
		var duration float64
		r.Attrs(func(a slog.Attr) bool {
			switch a.Key {
			case "code":
				code = a.Value.Int64()
			case "outcome":
				outcome = a.Value.String()
			case "durationMs":
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
				{Name: "StoreUnavailable", Unit: emf.Count, Value: emf.Once(code == 50300)},
				{Name: "Failures", Unit: emf.Count, Value: emf.Once(code == 50000)},
			}, requestDirectives...)
	}
}
