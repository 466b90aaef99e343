// Package emftest reads a log line as CloudWatch Logs reads an Embedded
// Metric Format document, by the rules of the specification (Amazon
// CloudWatch User Guide, "Specification: Embedded metric format"), so that
// tests can hold the functions' metrics to it and find the metrics that the
// template's alarms and dashboard name.
package emftest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Metric is one metric a line publishes under one dimension set.
type Metric struct {
	Namespace  string
	Name       string
	Unit       string
	Dimensions map[string]string // the set's dimensions and their values
	Value      float64
}

// units are the specification's StandardUnit values.
var units = []string{"Seconds", "Microseconds", "Milliseconds", "Bytes", "Kilobytes", "Megabytes", "Gigabytes", "Terabytes",
	"Bits", "Kilobits", "Megabits", "Gigabits", "Terabits", "Percent", "Count", "Bytes/Second", "Kilobytes/Second",
	"Megabytes/Second", "Gigabytes/Second", "Terabytes/Second", "Bits/Second", "Kilobits/Second", "Megabits/Second",
	"Gigabits/Second", "Terabits/Second", "Count/Second", "None"}

// Check reads line and returns every metric it publishes, or why
// CloudWatch would not extract them.
func Check(line []byte) ([]Metric, error) {
	var root map[string]json.RawMessage
	if err := json.Unmarshal(line, &root); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	var meta struct {
		Timestamp         *json.Number `json:"Timestamp"`
		CloudWatchMetrics []struct {
			Namespace  *string `json:"Namespace"`
			Dimensions [][]string
			Metrics    []struct {
				Name *string `json:"Name"`
				Unit string  `json:"Unit"`
			} `json:"Metrics"`
		} `json:"CloudWatchMetrics"`
	}
	raw, ok := root["_aws"]
	if !ok {
		return nil, errors.New("no _aws member")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&meta); err != nil {
		return nil, fmt.Errorf("_aws: %w", err)
	}
	if meta.Timestamp == nil {
		return nil, errors.New("_aws.Timestamp is missing")
	}
	ms, err := meta.Timestamp.Int64()
	if err != nil || ms < time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli() || ms > time.Now().Add(24*time.Hour).UnixMilli() {
		return nil, fmt.Errorf("_aws.Timestamp %s is not milliseconds since the epoch", meta.Timestamp)
	}
	if len(meta.CloudWatchMetrics) == 0 {
		return nil, errors.New("_aws.CloudWatchMetrics is empty")
	}
	var out []Metric
	for i, d := range meta.CloudWatchMetrics {
		if d.Namespace == nil || *d.Namespace == "" || len(*d.Namespace) > 255 {
			return nil, fmt.Errorf("directive %d: Namespace must be 1 to 255 characters", i)
		}
		if len(d.Metrics) == 0 || len(d.Metrics) > 100 {
			return nil, fmt.Errorf("directive %d: %d metrics, want 1 to 100", i, len(d.Metrics))
		}
		if d.Dimensions == nil {
			return nil, fmt.Errorf("directive %d: Dimensions is missing", i)
		}
		for _, set := range d.Dimensions {
			if len(set) > 30 {
				return nil, fmt.Errorf("directive %d: a dimension set of %d keys, at most 30", i, len(set))
			}
			dims := map[string]string{}
			for _, k := range set {
				var v string
				if err := json.Unmarshal(root[k], &v); err != nil {
					return nil, fmt.Errorf("dimension %q: not a string member of the root: %s", k, root[k])
				}
				dims[k] = v
			}
			for _, m := range d.Metrics {
				if m.Name == nil || *m.Name == "" || len(*m.Name) > 1024 {
					return nil, fmt.Errorf("directive %d: a metric without a Name", i)
				}
				if m.Unit != "" && !slices.Contains(units, m.Unit) {
					return nil, fmt.Errorf("metric %s: unit %q is not a StandardUnit", *m.Name, m.Unit)
				}
				var v float64
				if err := json.Unmarshal(root[*m.Name], &v); err != nil {
					return nil, fmt.Errorf("metric %q: not a number member of the root: %s", *m.Name, root[*m.Name])
				}
				out = append(out, Metric{Namespace: *d.Namespace, Name: *m.Name, Unit: m.Unit, Dimensions: dims, Value: v})
			}
		}
	}
	return out, nil
}
