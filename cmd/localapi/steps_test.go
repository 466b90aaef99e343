package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/httpapi"
)

// Each answer names the requestId of its log lines in x-amzn-RequestId; at
// LOG_LEVEL=debug the token check and the store call each log a line with
// that id, their outcome and durationMs (what make run TRACE=1 joins), and
// never the token; at the default level they log nothing.
func TestStepLinesNameTheRequest(t *testing.T) {
	t.Parallel()
	for _, level := range []string{"debug", ""} {
		s := start(t, map[string]string{"STORE_PATH": filepath.Join(t.TempDir(), "plants.db"), "LOG_LEVEL": level})
		requests := []struct {
			name, token, body string
			want              []string // the request's step lines: msg outcome [reason]
		}{
			{"create", s.token, `{"id":1,"name":"Monstera"}`, []string{"token accepted local-developer", "store created Create"}},
			{"replay", s.token, `{"id":1,"name":"Monstera"}`, []string{"token accepted local-developer", "store replayed Create"}},
			{"conflict", s.token, `{"id":1,"name":"Fern"}`, []string{"token accepted local-developer", "store exists Create"}},
			{"forged", s.token + "x", `{"id":2,"name":"Fern"}`, []string{"token refused bad_signature"}},
			{"missing", "", `{"id":2,"name":"Fern"}`, []string{"token refused missing"}},
		}
		ids := map[string]string{} // request id → the request's name
		for _, r := range requests {
			_, header, _ := apitest.Post(t, s.url+"/plants", r.token, r.body)
			id := header.Get("X-Amzn-Requestid")
			if id == "" || ids[id] != "" {
				t.Fatalf("%s: x-amzn-RequestId %q (seen: %v)", r.name, id, ids)
			}
			ids[id] = r.name
		}
		if err := s.stop(); err != nil {
			t.Fatal(err)
		}
		steps := map[string][]string{} // request name → its step lines
		requestLines := 0
		for _, line := range strings.Split(strings.TrimSpace(s.stderr.String()), "\n") {
			var l struct {
				Msg, RequestID, Outcome, Reason, Subject, Op string
				DurationMs                                   *float64
			}
			if err := json.Unmarshal([]byte(line), &l); err != nil {
				t.Fatalf("%q: %v", line, err)
			}
			name := ids[l.RequestID]
			switch {
			case l.Msg == "request" && name != "":
				requestLines++
			case l.Msg == httpapi.StepToken || l.Msg == httpapi.StepStore:
				if name == "" || l.DurationMs == nil {
					t.Errorf("a step line without its request's id or durationMs: %s", line)
				}
				steps[name] = append(steps[name], strings.Join(strings.Fields(l.Msg+" "+l.Outcome+" "+l.Reason+l.Subject+" "+l.Op), " "))
			}
		}
		if requestLines != len(requests) {
			t.Errorf("LOG_LEVEL=%q: %d request lines name an answered id, want %d:\n%s", level, requestLines, len(requests), s.stderr)
		}
		for _, r := range requests {
			want := r.want
			if level == "" {
				want = nil
			}
			if got := steps[r.name]; strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("LOG_LEVEL=%q, %s: step lines %q, want %q", level, r.name, got, want)
			}
		}
		if strings.Contains(s.stderr.String(), s.token[len(s.token)-16:]) {
			t.Errorf("the log holds the token:\n%s", s.stderr)
		}
	}
}
