// Package trace records what happens to each request that make start-api
// serves, gateway to table: the route match, the authorizer (cache hit or
// miss, its decision, its duration and policy), each function invocation
// (cold or warm, init and duration), each DynamoDB call the function made
// (operation, condition outcome, duration) and the answer. It shows each
// request as one line on the terminal (Line) and on a loopback page with its
// steps and the functions' log lines of that request (Recorder.Handler).
//
// The parts are joined by the ids the functions already carry: the Lambda
// request id each log line names (requestId), and the trace header Lambda
// hands each invocation (Lambda-Runtime-Trace-Id), which aws-lambda-go puts
// in _X_AMZN_TRACE_ID and the SDK sends to DynamoDB as X-Amzn-Trace-Id
// (aws/middleware/recursion_detection.go). Nothing of this runs in what
// ships.
//
// make run TRACE=1 (tools/cmd/runfront) records the parts the local API
// has: its token check and its store call, from the step lines it logs at
// debug level, joined by the request id its answer names.
package trace

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
)

// Step is one part of a request.
type Step struct {
	Name   string        // "route", "authorizer", a function's logical id, "DynamoDB PutItem", ...
	Start  time.Duration // from the request's start
	Took   time.Duration
	Detail string // e.g. "cache miss, allowed", "cold, init 31ms", "condition held"
	Doc    string // a document to show beside it (the authorizer's policy), or ""
}

// Trace is what happened to one request.
type Trace struct {
	ID       string
	Start    time.Time
	Method   string
	Path     string
	Status   int
	Code     int    // the answer's Error code ("error"), 0 when it has none
	Answer   string // the gateway response type, or the outcome the function logged
	Took     time.Duration
	Steps    []Step
	Logs     []string // the functions' log lines of this request, as written
	Finished bool

	invocations map[string]bool // Lambda request ids → a log line has come
	authReason  string          // the authorizer's logged reason
	ids         []string        // its keys in the recorder's byID
}

// Recorder keeps the last Keep traces and prints one line per request.
type Recorder struct {
	Out  io.Writer // one line per request (the terminal)
	Keep int       // how many traces the page lists; 200 when 0

	// LogWait bounds how long a finished request waits for the log lines
	// of its invocations, which cross a pipe after the function answered;
	// 100 ms when 0. It delays only the terminal line, never the answer.
	LogWait time.Duration

	// Explorer is what the API explorer sends with (make start-api sets it
	// before it serves).
	Explorer Explorer

	// Title names the pages: what serves them, from which template.
	Title string

	mu        sync.Mutex
	traces    []*Trace              // oldest first
	byID      map[string]*Trace     // trace ids, Lambda request ids and trace headers
	held      map[string][]heldLine // log lines of request ids not known yet (hold)
	heldOrder []string              // their ids, oldest first
	arrived   *sync.Cond            // a log line came
	key       string                // the pages' key (Link), made per run
}

// NewRecorder prints to out.
func NewRecorder(out io.Writer) *Recorder {
	r := &Recorder{Out: out, byID: map[string]*Trace{}, held: map[string][]heldLine{}, key: rand.Text()}
	r.arrived = sync.NewCond(&r.mu)
	return r
}

type ctxKey struct{}

// active is the trace of a request in flight.
type active struct {
	r *Recorder
	t *Trace
}

// Span records one step of the request that ctx carries; it is a no-op
// when ctx carries none (the tools without a recorder, the tests).
type Span struct {
	a     *active
	name  string
	start time.Time
}

// Begin starts a step named name; End records it.
func Begin(ctx context.Context, name string) Span {
	a, _ := ctx.Value(ctxKey{}).(*active)
	return Span{a: a, name: name, start: time.Now()}
}

// End records the step with its detail and an optional document.
func (s Span) End(detail, doc string) {
	if s.a != nil {
		s.a.r.step(s.a.t, s.name, s.start, time.Since(s.start), detail, doc)
	}
}

// Note records an instant step (a refusal, the route match).
func Note(ctx context.Context, name, detail string) {
	if a, _ := ctx.Value(ctxKey{}).(*active); a != nil {
		a.r.step(a.t, name, time.Now(), 0, detail, "")
	}
}

// Invoked ties a function invocation to the request ctx carries: its
// Lambda request id (the log lines' requestId) and its trace header (what
// the SDK sends to DynamoDB), or "" when it has none. The request waits for
// the invocation's last log line (its request or authorize line) before
// its line is printed, for at most LogWait.
func Invoked(ctx context.Context, requestID, traceHeader string) {
	a, _ := ctx.Value(ctxKey{}).(*active)
	if a == nil {
		return
	}
	a.r.mu.Lock()
	defer a.r.mu.Unlock()
	a.t.invocations[requestID] = false
	a.r.index(a.t, requestID)
	if traceHeader != "" {
		a.r.index(a.t, traceHeader)
	}
	a.r.claim(a.t, requestID)
}

// AddStep records a step of the trace that id names (a Lambda request id
// or a trace header), for parts that see only the ids (the DynamoDB
// proxy). It reports whether a trace was found.
func (r *Recorder) AddStep(id, name string, start time.Time, took time.Duration, detail string) bool {
	r.mu.Lock()
	t := r.byID[id]
	r.mu.Unlock()
	if t == nil {
		return false
	}
	r.step(t, name, start, took, detail, "")
	return true
}

func (r *Recorder) step(t *Trace, name string, start time.Time, took time.Duration, detail, doc string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.addStep(t, name, start, took, detail, doc)
}

// addStep is step with r.mu held.
func (r *Recorder) addStep(t *Trace, name string, start time.Time, took time.Duration, detail, doc string) {
	st := Step{Name: name, Start: start.Sub(t.Start), Took: took, Detail: detail, Doc: doc}
	if name == "authorizer" && t.authReason != "" {
		st.Detail += ", reason " + t.authReason
	}
	// In order of their start: a step that encloses others (the
	// authorizer, its function) ends, and is recorded, after them.
	i, _ := slices.BinarySearchFunc(t.Steps, st, func(a, b Step) int { return cmp.Compare(a.Start, b.Start) })
	t.Steps = slices.Insert(t.Steps, i, st)
}

// TraceHeader names a request's trace in its answer, for the explorer's
// link (start-api only; API Gateway sends no such header).
const TraceHeader = "X-Samlocal-Trace"

// Handler traces every request to next and serves the page under
// /_samlocal/ (Page).
func (r *Recorder) Handler(next http.Handler) http.Handler {
	page := r.page()
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.HasPrefix(req.URL.Path, PagePrefix) {
			page.ServeHTTP(w, req)
			return
		}
		t := r.begin(req)
		w.Header().Set(TraceHeader, t.ID)
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, req.WithContext(context.WithValue(req.Context(), ctxKey{}, &active{r: r, t: t})))
		r.finish(t, rec)
	})
}

func (r *Recorder) begin(req *http.Request) *Trace {
	var b [6]byte
	_, _ = rand.Read(b[:])
	t := &Trace{ID: hex.EncodeToString(b[:]), Start: time.Now(), Method: req.Method, Path: req.URL.Path, invocations: map[string]bool{}}
	keep := r.Keep
	if keep == 0 {
		keep = 200
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.traces = append(r.traces, t)
	r.index(t, t.ID)
	for len(r.traces) > keep {
		for _, id := range r.traces[0].ids {
			delete(r.byID, id)
		}
		r.traces = r.traces[1:]
	}
	return t
}

// index finds t by ids from now on; r.mu is held.
func (r *Recorder) index(t *Trace, ids ...string) {
	for _, id := range ids {
		r.byID[id] = t
	}
	t.ids = append(t.ids, ids...)
}

// finish records the answer, waits a moment for the invocations' log
// lines, and prints the request's line.
func (r *Recorder) finish(t *Trace, rec *recorder) {
	took := time.Since(t.Start)
	wait := r.LogWait
	if wait == 0 {
		wait = 100 * time.Millisecond
	}
	r.mu.Lock()
	t.Status, t.Code, t.Took = rec.status, errorCode(rec.body.Bytes()), took
	if typ := rec.Header().Get("X-Amzn-Errortype"); typ != "" {
		t.Answer = typ // the gateway's own response
	}
	expired := false // set under r.mu by the timer, so no wake-up is missed
	timer := time.AfterFunc(wait, func() { r.mu.Lock(); expired = true; r.arrived.Broadcast(); r.mu.Unlock() })
	for !t.logged() && !expired {
		r.arrived.Wait()
	}
	timer.Stop()
	t.Finished = true
	line := Line(t)
	r.mu.Unlock()
	if r.Out != nil {
		fmt.Fprintln(r.Out, line)
	}
}

// logged reports whether every invocation's log line has come.
func (t *Trace) logged() bool {
	for _, seen := range t.invocations {
		if !seen {
			return false
		}
	}
	return true
}

// Traces returns copies of the kept traces, newest first.
func (r *Recorder) Traces() []Trace {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]Trace, 0, len(r.traces))
	for i := len(r.traces) - 1; i >= 0; i-- {
		out = append(out, r.traces[i].copy())
	}
	return out
}

// Get returns a copy of the trace id names.
func (r *Recorder) Get(id string) (Trace, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.byID[id]
	if !ok || t.ID != id {
		return Trace{}, false
	}
	return t.copy(), true
}

func (t *Trace) copy() Trace {
	c := *t
	c.Steps = append([]Step(nil), t.Steps...)
	c.Logs = append([]string(nil), t.Logs...)
	c.invocations, c.ids = nil, nil
	return c
}

// recorder keeps the status and the start of the body of an answer.
type recorder struct {
	http.ResponseWriter
	status int
	wrote  bool
	body   limitedBuffer
}

func (r *recorder) WriteHeader(status int) {
	if !r.wrote {
		r.status, r.wrote = status, true
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.wrote = true
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// limitedBuffer keeps the first 4 KiB written: enough for an Error body.
type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) {
	if room := 4096 - len(l.b); room > 0 {
		l.b = append(l.b, p[:min(room, len(p))]...)
	}
}

func (l *limitedBuffer) Bytes() []byte { return l.b }

// Invocations is the lambdaemu.Observer that records a function's
// invocations in the trace of the request ctx carries.
type Invocations struct{}

// Begin starts the invocation's step.
func (Invocations) Begin(ctx context.Context, function string) func(detail string) {
	s := Begin(ctx, function)
	return func(detail string) { s.End(detail, "") }
}

// Invoked ties the invocation to the request.
func (Invocations) Invoked(ctx context.Context, requestID, traceHeader string) {
	Invoked(ctx, requestID, traceHeader)
}
