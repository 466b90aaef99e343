package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/plantstore/plantstore/internal/httpapi"
)

// Logs returns a writer for the functions' output that passes it on to w
// and gives each JSON line that names a request (requestId, the Lambda
// request id every line of an invocation carries) to that request's trace.
// A request line of createplant also names the request's outcome.
func (r *Recorder) Logs(w io.Writer) io.Writer { return &logWriter{r: r, w: w} }

type logWriter struct {
	r    *Recorder
	w    io.Writer
	mu   sync.Mutex
	part []byte // a line not yet ended
}

func (l *logWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.part = append(l.part, p...)
	for {
		i := bytes.IndexByte(l.part, '\n')
		if i < 0 {
			break
		}
		l.r.logLine(string(l.part[:i]))
		l.part = l.part[i+1:]
	}
	if len(l.part) > 64<<10 { // not a log line of ours; do not hold it
		l.part = nil
	}
	return n, err
}

func (r *Recorder) logLine(line string) {
	var attrs map[string]any
	if json.Unmarshal([]byte(line), &attrs) != nil {
		return
	}
	requestID, _ := attrs["requestId"].(string)
	if requestID == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.byID[requestID]
	if t == nil {
		return
	}
	t.Logs = append(t.Logs, line)
	if _, ok := t.invocations[requestID]; ok {
		t.invocations[requestID] = true
	}
	// The authorizer's line says why it decided as it did.
	if reason, _ := attrs["reason"].(string); attrs["msg"] == "authorize" && reason != "" && reason != "none" {
		t.authReason = reason // for a step not recorded yet
		for i := len(t.Steps) - 1; i >= 0; i-- {
			if t.Steps[i].Name == "authorizer" {
				t.Steps[i].Detail += ", reason " + reason
				break
			}
		}
	}
	if outcome, _ := attrs[httpapi.LogOutcome].(string); attrs["msg"] == httpapi.LogMessage && outcome != "" && t.Answer == "" {
		t.Answer = outcome
	}
	r.arrived.Broadcast()
}
