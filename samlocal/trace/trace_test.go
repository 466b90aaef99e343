package trace

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

// A request's steps, its invocation's log lines (by requestId) and its
// DynamoDB calls (by trace header) end up on its trace; lines of other
// requests and lines without an id do not; the line printed names them.
func TestARequestCollectsItsParts(t *testing.T) {
	t.Parallel()
	var out, passed proctest.Output
	r := NewRecorder(&out)
	logs := r.Logs(&passed)
	table := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if strings.Contains(req.Header.Get("X-Amz-Target"), "PutItem") {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException"}`)
			return
		}
		io.WriteString(w, `{}`)
	}))
	defer table.Close()
	creds := aws.Credentials{AccessKeyID: "LOCALTHEFUNCTIONSKEY", SecretAccessKey: "its-secret"}
	proxy, stop, err := r.DynamoDB(table.URL, creds)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()

	h := r.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		ctx := req.Context()
		Note(ctx, "route", "POST /plants")
		Invoked(ctx, "req-1", "Root=1-a-b")
		span := Begin(ctx, "CreatePlantFunction")
		for _, target := range []string{"PutItem", "GetItem"} {
			call := dynamoemutest.SignedRequest(t, proxy, creds, target, `{"ConditionExpression":"attribute_not_exists(id)"}`, time.Now())
			call.Header.Set("X-Amzn-Trace-Id", "Root=1-a-b")
			resp, err := http.DefaultClient.Do(call)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
		}
		io.WriteString(logs, `{"msg":"request","requestId":"req-1","outcome":"conflict",`)
		io.WriteString(logs, `"code":40009}`+"\n"+`{"msg":"request","requestId":"someone-else"}`+"\n"+`{"msg":"init"}`+"\n")
		span.End("warm", "")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":40009,"message":"taken"}`)
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/plants", nil))

	id := rec.Header().Get(TraceHeader)
	got, ok := r.Get(id)
	if !ok {
		t.Fatalf("no trace %q", id)
	}
	var names []string
	for _, s := range got.Steps {
		names = append(names, s.Name+": "+s.Detail)
	}
	want := "route: POST /plants | CreatePlantFunction: warm | DynamoDB PutItem: condition failed (ConditionalCheckFailedException) | DynamoDB GetItem: condition held"
	if strings.Join(names, " | ") != want {
		t.Errorf("steps\n%s\nwant\n%s", strings.Join(names, " | "), want)
	}
	if got.Status != 400 || got.Code != 40009 || got.Answer != "conflict" || len(got.Logs) != 1 || !strings.Contains(got.Logs[0], `"req-1"`) {
		t.Errorf("trace %+v", got)
	}
	if !strings.Contains(passed.String(), `{"msg":"init"}`) {
		t.Error("the functions' output was not passed on")
	}
	line := out.String()
	if !strings.Contains(line, "POST /plants 400 error 40009 conflict ") || strings.Count(line, "\n") != 1 ||
		!strings.Contains(line, "| DynamoDB PutItem +") {
		t.Errorf("line %q", line)
	}
}

// A request whose function never logs is printed after LogWait, not held.
func TestAMissingLogLineDoesNotHoldTheLine(t *testing.T) {
	t.Parallel()
	var out proctest.Output
	r := NewRecorder(&out)
	r.LogWait = time.Millisecond
	done := make(chan struct{})
	go func() {
		defer close(done)
		h := r.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { Invoked(req.Context(), "silent", "Root=1-s") }))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/x", nil))
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second): // catches a hang only
		t.Fatal("a request whose function logged nothing was held")
	}
	if !strings.Contains(out.String(), "GET /x 200") {
		t.Errorf("line %q", out.String())
	}
}

// The recorder keeps the newest Keep traces; an old one's page is gone.
func TestTheRecorderKeepsTheNewest(t *testing.T) {
	t.Parallel()
	r := NewRecorder(io.Discard)
	r.Keep = 2
	h := r.Handler(http.NotFoundHandler())
	var ids []string
	for range 3 {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/plants", nil))
		ids = append(ids, rec.Header().Get(TraceHeader))
	}
	if got := r.Traces(); len(got) != 2 || got[0].ID != ids[2] || got[1].ID != ids[1] {
		t.Errorf("kept %v, want the last two of %v, newest first", got, ids)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, r.Link("", "requests/"+ids[0]), nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("the dropped trace's page: %d", rec.Code)
	}
}

// The explorer reads the API's own document: POST /plants with NewPlant's
// fields and an example made of their examples.
func TestTheExplorerReadsTheOpenAPIDocument(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	ops, err := ParseOpenAPI(doc)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 1 || ops[0].Method != "POST" || ops[0].Path != "/plants" || ops[0].ID != "createPlant" {
		t.Fatalf("operations %+v", ops)
	}
	var fields []string
	for _, f := range ops[0].Fields {
		fields = append(fields, f.Name+map[bool]string{true: "*"}[f.Required])
	}
	if strings.Join(fields, " ") != "id* name* tag" || ops[0].Example != `{"id": 1, "name": "Monstera", "tag": "indoor"}` {
		t.Errorf("fields %v, example %s", fields, ops[0].Example)
	}
	r := NewRecorder(io.Discard)
	r.Explorer = Explorer{Operations: ops, Token: "tok.en.value"}
	rec := httptest.NewRecorder()
	r.Handler(http.NotFoundHandler()).ServeHTTP(rec, httptest.NewRequest(http.MethodGet, r.Link("", "explorer"), nil))
	body := rec.Body.String()
	if rec.Code != 200 || !strings.Contains(body, `data-path="/plants"`) || !strings.Contains(body, `value="tok.en.value"`) ||
		!strings.Contains(rec.Header().Get("Content-Security-Policy"), "script-src 'self'") || strings.Contains(body, "<script>") {
		t.Errorf("explorer: %d %s\n%s", rec.Code, rec.Header(), body)
	}
	if len(r.Traces()) != 0 {
		t.Error("the page's own requests were traced")
	}
}

// make run's local API names a request's id only in its answer, after its
// step lines: they are held until Invoked claims them and become steps at
// their own times; the request's line waits for its request line, not its
// first; LogsAbove passes on only what the developer's level asks for.
func TestTheLocalAPIsLinesJoinTheirRequest(t *testing.T) {
	t.Parallel()
	var out, passed proctest.Output
	r := NewRecorder(&out)
	r.LogWait = time.Minute // the request line comes; only a hang waits this long
	logs := r.LogsAbove(&passed, slog.LevelInfo)
	at := func(d time.Duration) string { return time.Now().Add(d).Format(time.RFC3339Nano) }
	answered, served := make(chan struct{}), make(chan struct{})
	h := r.Handler(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.WriteString(logs, `{"time":"`+at(0)+`","level":"DEBUG","msg":"token","requestId":"api-1","durationMs":0.5,"outcome":"accepted","subject":"dev"}`+"\n")
		io.WriteString(logs, `{"time":"`+at(3*time.Millisecond)+`","level":"DEBUG","msg":"store","requestId":"api-1","durationMs":2,"op":"Create","outcome":"created"}`+"\n")
		Invoked(req.Context(), "api-1", "")
		w.WriteHeader(http.StatusOK)
		close(answered)
	}))
	go func() {
		defer close(served)
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodPost, "/plants", nil))
	}()
	<-answered
	select {
	case <-served:
		t.Fatalf("the line was printed before the request line came: %q", out.String())
	case <-time.After(50 * time.Millisecond): // a slow machine can only hide the fault, never fake it
	}
	io.WriteString(logs, `{"time":"`+at(0)+`","level":"INFO","msg":"request","requestId":"api-1","status":200,"outcome":"created"}`+"\n")
	<-served

	line := out.String()
	if !regexp.MustCompile(`^\S+ POST /plants 200 created \S+ \| token \+\S+ 0\.50ms accepted, subject dev \| store Create \+\S+ 2\.0ms created\n$`).MatchString(line) {
		t.Errorf("line %q", line)
	}
	got := r.Traces()[0]
	if len(got.Logs) != 3 {
		t.Errorf("%d log lines on the trace, want 3", len(got.Logs))
	}
	if p := passed.String(); strings.Contains(p, "DEBUG") || !strings.Contains(p, `"msg":"request"`) {
		t.Errorf("passed on at INFO:\n%s", p)
	}
}
