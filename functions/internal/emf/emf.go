// Package emf puts CloudWatch metrics into the functions' one JSON log line
// per request, in the Embedded Metric Format: the "_aws" member names the
// namespace, the dimension sets and the metrics, and each dimension's and
// metric's value is a top-level member of the same line, which CloudWatch
// Logs turns into metrics without any API call (Amazon CloudWatch User
// Guide, "Specification: Embedded metric format"). The few Go EMF libraries
// wrap a logger of their own; these ~60 lines add the block to the slog line
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

type directive struct {
	Namespace  string       `json:"Namespace"`
	Dimensions [][]string   `json:"Dimensions"`
	Metrics    []definition `json:"Metrics"`
}

type definition struct {
	Name string `json:"Name"`
	Unit string `json:"Unit"`
}

// Attrs returns what makes a log line an EMF document: the "_aws" member
// (timestamp in milliseconds, one directive), each dimension of dims as a
// string member, and each metric's value as a number member. dimensionSets
// name dimensions of dims; an empty set publishes the metrics without
// dimensions (the stack-wide figure an alarm watches).
func Attrs(namespace string, at time.Time, dimensionSets [][]string, dims map[string]string, metrics []Metric) []slog.Attr {
	d := directive{Namespace: namespace, Dimensions: dimensionSets}
	attrs := []slog.Attr{}
	for _, m := range metrics {
		d.Metrics = append(d.Metrics, definition{Name: m.Name, Unit: m.Unit})
		attrs = append(attrs, slog.Float64(m.Name, m.Value))
	}
	for k, v := range dims {
		attrs = append(attrs, slog.String(k, v))
	}
	return append(attrs, slog.Group("_aws", slog.Int64("Timestamp", at.UnixMilli()), slog.Any("CloudWatchMetrics", []directive{d})))
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
