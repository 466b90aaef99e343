package emf

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/plantstore/plantstore/functions/internal/emf/emftest"
)

// A line with Attrs is what the specification asks for: emftest reads each
// metric under each of its dimension sets; the wrapper adds them only to the
// records it is asked to.
func TestAttrsMakeAnEMFDocument(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	h := NewHandler(slog.NewJSONHandler(&b, nil), func(r slog.Record) []slog.Attr {
		if r.Message != "request" {
			return nil
		}
		return Attrs("PlantStore/test", at, map[string]string{"Outcome": "created"},
			[]Metric{{Name: "Requests", Unit: Count, Value: 1}, {Name: "Duration", Unit: Milliseconds, Value: 4.5}},
			Directive{Dimensions: [][]string{{"Outcome"}, {}}, Metrics: []string{"Requests"}},
			Directive{Dimensions: [][]string{{}}, Metrics: []string{"Duration"}})
	})
	logger := slog.New(h).With("fn", "test")
	logger.Info("request", "status", 200)
	line := append([]byte(nil), b.Bytes()...)
	metrics, err := emftest.Check(line)
	if err != nil {
		t.Fatalf("%v\n%s", err, line)
	}
	got := map[string]float64{}
	for _, m := range metrics {
		got[m.Name+"/"+m.Dimensions["Outcome"]] = m.Value
	}
	if len(metrics) != 3 || got["Requests/created"] != 1 || got["Requests/"] != 1 || got["Duration/"] != 4.5 {
		t.Errorf("metrics %+v", metrics)
	}
	if !bytes.Contains(line, []byte(`"Timestamp":1795435200000`)) {
		t.Errorf("timestamp not in milliseconds: %s", line)
	}
	b.Reset()
	logger.Info("other")
	if _, err := emftest.Check(b.Bytes()); err == nil {
		t.Errorf("a line the wrapper was not asked to mark is EMF: %s", b.Bytes())
	}
}

// What emftest refuses, the specification's rules.
func TestCheckRefuses(t *testing.T) {
	t.Parallel()
	for name, line := range map[string]string{
		"no _aws":             `{"Requests":1}`,
		"seconds":             `{"_aws":{"Timestamp":1795435200,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"Requests"}]}]},"Requests":1}`,
		"metric not a member": `{"_aws":{"Timestamp":1795435200000,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"Requests"}]}]}}`,
		"metric a string":     `{"_aws":{"Timestamp":1795435200000,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"Requests"}]}]},"Requests":"1"}`,
		"dimension missing":   `{"_aws":{"Timestamp":1795435200000,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[["Outcome"]],"Metrics":[{"Name":"Requests"}]}]},"Requests":1}`,
		"bad unit":            `{"_aws":{"Timestamp":1795435200000,"CloudWatchMetrics":[{"Namespace":"n","Dimensions":[[]],"Metrics":[{"Name":"Requests","Unit":"ms"}]}]},"Requests":1}`,
		"no namespace":        `{"_aws":{"Timestamp":1795435200000,"CloudWatchMetrics":[{"Dimensions":[[]],"Metrics":[{"Name":"Requests"}]}]},"Requests":1}`,
	} {
		if _, err := emftest.Check([]byte(line)); err == nil {
			t.Errorf("%s: accepted %s", name, line)
		}
	}
}
