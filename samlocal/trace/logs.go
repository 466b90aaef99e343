package trace

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// Logs returns a writer for the functions' output that passes it on to w,
// each line escaped (Escape: a function may log what a request carries),
// and gives each JSON line that names a request (requestId, the Lambda
// request id every line of an invocation carries) to that request's trace.
// A request line of createplant also names the request's outcome.
func (r *Recorder) Logs(w io.Writer) io.Writer {
	return termsafe.Lines(w, func(line string) bool { r.logLine(line); return true })
}

// LogsAbove is Logs, passing on to w only the lines at level or above (and
// any line that is not a JSON log line); every line still reaches its
// trace. make run TRACE=1 runs the local API at debug level for its step
// lines and shows what the developer's LOG_LEVEL asks for.
func (r *Recorder) LogsAbove(w io.Writer, level slog.Level) io.Writer {
	return termsafe.Lines(w, func(line string) bool {
		l, ok := r.logLine(line)
		return !ok || l >= level
	})
}

// The log vocabulary that the trace reads back from JSON log lines (slog's
// JSONHandler form: "time", "level", "msg"): a function or server that
// writes these names gets its lines joined to their request, its outcome
// in the request's line and its steps in the waterfall. Plant Store's
// internal/httpapi writes them (tools/localtest holds that the names
// agree); a project that writes none still gets every line on the page of
// the request whose Lambda request id it carries (requestId).
const (
	// LogMessage is the message of a request's own line, which ends its
	// invocation's lines; LogOutcome there names the request's outcome.
	LogMessage  = "request"
	LogOutcome  = "outcome"    // the outcome of a request or a step (string)
	LogDuration = "durationMs" // a request's or a step's milliseconds (float64)
	LogRequest  = "requestId"  // the request's id (string)

	// Step lines, each logged as the step ends with LogRequest,
	// LogDuration and LogOutcome: a token check (with StepSubject or
	// StepReason) and a store call (with StepOp and StepError).
	StepToken   = "token"
	StepStore   = "store"
	StepSubject = "subject"
	StepReason  = "reason"
	StepOp      = "op"
	StepError   = "error"

	// authorizeMessage ends an authorizer's lines, with its "reason".
	authorizeMessage = "authorize"
)

func final(msg string) bool { return msg == LogMessage || msg == authorizeMessage }

// logLine gives line to the trace of the request it names, or holds it
// until that request is known (Invoked); it returns the line's level, and
// whether it is a JSON log line.
func (r *Recorder) logLine(line string) (slog.Level, bool) {
	var attrs map[string]any
	if json.Unmarshal([]byte(line), &attrs) != nil {
		return 0, false
	}
	var level slog.Level
	if s, ok := attrs["level"].(string); ok {
		_ = level.UnmarshalText([]byte(s))
	}
	requestID, _ := attrs[LogRequest].(string)
	if requestID == "" {
		return level, true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.byID[requestID]
	if t == nil {
		r.hold(requestID, heldLine{line, attrs})
		return level, true
	}
	r.attach(t, requestID, line, attrs)
	r.arrived.Broadcast()
	return level, true
}

// heldIDs bounds the ids whose lines wait for their request to be known.
const heldIDs = 256

// heldLine is a log line, parsed, whose request is not known yet.
type heldLine struct {
	line  string
	attrs map[string]any
}

// hold keeps line until Invoked names its request id; r.mu is held. The
// local API names a request's id in its answer, which can come after the
// request's first lines.
func (r *Recorder) hold(requestID string, line heldLine) {
	if _, ok := r.held[requestID]; !ok {
		if len(r.heldOrder) == heldIDs {
			delete(r.held, r.heldOrder[0])
			r.heldOrder = r.heldOrder[1:]
		}
		r.heldOrder = append(r.heldOrder, requestID)
	}
	r.held[requestID] = append(r.held[requestID], line)
}

// claim gives t the held lines of requestID; r.mu is held.
func (r *Recorder) claim(t *Trace, requestID string) {
	lines := r.held[requestID]
	if lines == nil {
		return
	}
	delete(r.held, requestID)
	for _, l := range lines {
		r.attach(t, requestID, l.line, l.attrs)
	}
}

// attach adds a log line of requestID to t; r.mu is held.
func (r *Recorder) attach(t *Trace, requestID, line string, attrs map[string]any) {
	t.Logs = append(t.Logs, line)
	msg, _ := attrs["msg"].(string)
	if _, ok := t.invocations[requestID]; ok && final(msg) {
		t.invocations[requestID] = true
	}
	// The authorizer's line says why it decided as it did.
	if reason, _ := attrs["reason"].(string); msg == authorizeMessage && reason != "" && reason != "none" {
		t.authReason = reason // for a step not recorded yet
		for i := len(t.Steps) - 1; i >= 0; i-- {
			if t.Steps[i].Name == "authorizer" {
				t.Steps[i].Detail += ", reason " + reason
				break
			}
		}
	}
	if outcome, _ := attrs[LogOutcome].(string); msg == LogMessage && outcome != "" && t.Answer == "" {
		t.Answer = outcome
	}
	if msg == StepToken || msg == StepStore {
		r.stepLine(t, msg, attrs)
	}
}

// stepLine records a step line of the local API (StepToken,
// StepStore) as a step: it was logged
// at its end, so it began durationMs before its time.
func (r *Recorder) stepLine(t *Trace, msg string, attrs map[string]any) {
	at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(attrs["time"]))
	took, ok := attrs[LogDuration].(float64)
	if err != nil || !ok {
		return
	}
	d := time.Duration(took * float64(time.Millisecond))
	detail := []string{fmt.Sprint(attrs[LogOutcome])}
	name := msg
	switch msg {
	case StepToken:
		if s, _ := attrs[StepSubject].(string); s != "" {
			detail = append(detail, "subject "+s)
		}
		if s, _ := attrs[StepReason].(string); s != "" {
			detail = append(detail, "reason "+s)
		}
	case StepStore:
		name += " " + fmt.Sprint(attrs[StepOp])
		if s, _ := attrs[StepError].(string); s != "" {
			detail = append(detail, s)
		}
	}
	r.addStep(t, name, at.Add(-d), d, strings.Join(detail, ", "), "")
}
