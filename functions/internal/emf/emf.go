// Package emf puts CloudWatch metrics into the functions' one JSON log line
// per request, in the Embedded Metric Format: the "_aws" member names the
// namespace, the dimension sets and the metrics, and each dimension's and
// metric's value is a top-level member of the same line, which CloudWatch
// Logs turns into metrics without any API call (Amazon CloudWatch User
// Guide, "Specification: Embedded metric format"). The few Go EMF libraries
// wrap a logger of their own; this package adds the block to the slog line
// the functions already write.
package emf

import (
	"context"
	"log/slog"
	"time"
)

// Units of the specification that the functions use.
const (
	Count        = "Count"
	Milliseconds = "Milliseconds"
)

// Metric is one value of a line.
type Metric struct {
	Name  string
	Unit  string
	Value float64
}

// Once is the value of a count that happened (1) or did not (0) on this
// line: a stack-wide Sum of it is how many times it happened.
func Once(happened bool) float64 {
	if happened {
		return 1
	}
	return 0
}

// Directive publishes the named metrics of a line under each dimension set;
// an empty set publishes them without dimensions (the stack-wide figure an
// alarm watches). Metrics cost per name and dimension value, so each
// directive asks only for the breakdowns someone reads.
type Directive struct {
	Dimensions [][]string
	Metrics    []string
}

type directive struct {
	Namespace  string       `json:"Namespace"`
	Dimensions [][]string   `json:"Dimensions"`
	Metrics    []definition `json:"Metrics"`
}

type definition struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// Attrs returns what makes a log line an EMF document: each metric's value
// and each dimension's value as top-level members, and the "_aws" member
// (the timestamp in milliseconds, one directive per element of ds).
func Attrs(namespace string, at time.Time, dims map[string]string, metrics []Metric, ds ...Directive) []slog.Attr {
	units := map[string]string{}
	attrs := []slog.Attr{}
	for _, m := range metrics {
		units[m.Name] = m.Unit
		attrs = append(attrs, slog.Float64(m.Name, m.Value))
	}
	for k, v := range dims {
		attrs = append(attrs, slog.String(k, v))
	}
	var out []directive
	for _, d := range ds {
		od := directive{Namespace: namespace, Dimensions: d.Dimensions}
		for _, name := range d.Metrics {
			od.Metrics = append(od.Metrics, definition{Name: name, Unit: units[name]})
		}
		out = append(out, od)
	}
	return append(attrs, slog.Group("_aws", slog.Int64("Timestamp", at.UnixMilli()), slog.Any("CloudWatchMetrics", out)))
}

// Handler adds metrics to the records for which metricsOf returns some: a
// slog.Handler in front of the function's JSON handler.
type Handler struct {
	slog.Handler
	metricsOf func(slog.Record) []slog.Attr
}

// NewHandler wraps next.
func NewHandler(next slog.Handler, metricsOf func(slog.Record) []slog.Attr) *Handler {
	return &Handler{Handler: next, metricsOf: metricsOf}
}

// Handle writes r with its metrics.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if attrs := h.metricsOf(r); len(attrs) > 0 {
		r = r.Clone()
		r.AddAttrs(attrs...)
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs and WithGroup keep the wrapper.
func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{Handler: h.Handler.WithAttrs(attrs), metricsOf: h.metricsOf}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{Handler: h.Handler.WithGroup(name), metricsOf: h.metricsOf}
}
