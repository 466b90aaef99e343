package lambdainit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// initErrors is a Runtime API that records each POST init/error.
type initErrors struct {
	host string // host:port, for AWS_LAMBDA_RUNTIME_API
	mu   sync.Mutex
	docs []map[string]string
}

// got returns the documents posted so far.
func (rec *initErrors) got() []map[string]string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.docs
}

func newInitErrors(t *testing.T) *initErrors {
	rec := &initErrors{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/2018-06-01/runtime/init/error" {
			t.Errorf("runtime API got %s %s, want POST /2018-06-01/runtime/init/error", r.Method, r.URL.Path)
		}
		if h := r.Header.Get("Lambda-Runtime-Function-Error-Type"); h != "Runtime.InitError" {
			t.Errorf("Lambda-Runtime-Function-Error-Type = %q, want Runtime.InitError", h)
		}
		body, _ := io.ReadAll(r.Body)
		var doc map[string]string
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Errorf("init error document %q: %v", body, err)
		}
		rec.mu.Lock()
		rec.docs = append(rec.docs, doc)
		rec.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	rec.host = srv.Listener.Addr().String()
	return rec
}

// keepDefault restores the default logger that run replaces.
func keepDefault(t *testing.T) {
	old := slog.Default()
	t.Cleanup(func() { slog.SetDefault(old) })
}

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// lines decodes the JSON lines in out.
func lines(t *testing.T, out *bytes.Buffer) []map[string]any {
	t.Helper()
	var ls []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q is not JSON: %v", l, err)
		}
		ls = append(ls, m)
	}
	return ls
}

// wantInitFailed checks that run failed init with errText: exit 1, one
// "init failed" line, one init error posted, start not called.
func wantInitFailed(t *testing.T, code int, out *bytes.Buffer, rt *initErrors, started bool, errText string) {
	t.Helper()
	if code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if started {
		t.Error("start was called after an init error")
	}
	ls := lines(t, out)
	if len(ls) != 1 || ls[0]["msg"] != "init failed" || ls[0]["level"] != "ERROR" || !strings.Contains(fmt.Sprint(ls[0]["error"]), errText) {
		t.Errorf("log %q, want one ERROR line \"init failed\" with an error containing %q", out, errText)
	}
	if docs := rt.got(); len(docs) != 1 || docs[0]["errorType"] != "InitError" || !strings.Contains(docs[0]["errorMessage"], errText) {
		t.Errorf("runtime API got %v, want one InitError whose message contains %q", docs, errText)
	}
}

// A wrong LOG_LEVEL fails init before New; an error from New fails it
// after. Either is logged and posted, and nothing starts.
func TestRunInitFails(t *testing.T) {
	for _, tc := range []struct {
		name     string
		level    string
		newErr   error
		wantNew  bool
		wantText string
	}{
		{name: "bad LOG_LEVEL", level: "loud", wantText: `LOG_LEVEL="loud"`},
		{name: "New fails", newErr: errors.New("TABLE_NAME is required"), wantNew: true, wantText: "TABLE_NAME is required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keepDefault(t)
			rt := newInitErrors(t)
			var out bytes.Buffer
			called, handled, started := false, false, false
			f := Function[*struct{}]{
				New: func(context.Context, func(string) string, *slog.Logger) (*struct{}, error) {
					called = true
					if tc.newErr != nil {
						return nil, tc.newErr
					}
					return &struct{}{}, nil
				},
				Handler: func(*struct{}) any { handled = true; return func() {} },
			}
			code := run(f, env(map[string]string{"LOG_LEVEL": tc.level, "AWS_LAMBDA_RUNTIME_API": rt.host}), &out, func(any) { started = true })
			wantInitFailed(t, code, &out, rt, started, tc.wantText)
			if called != tc.wantNew {
				t.Errorf("New called: %v, want %v", called, tc.wantNew)
			}
			if handled {
				t.Error("Handler was called after an init error")
			}
		})
	}
}

func TestRunStartsWithHandlerAndDefaultLogger(t *testing.T) {
	keepDefault(t)
	rt := newInitErrors(t)
	var out bytes.Buffer
	type state struct{ name string }
	built := &state{"the one"}
	want := &state{"its handler"}
	var got any
	f := Function[*state]{
		New: func(_ context.Context, getenv func(string) string, logger *slog.Logger) (*state, error) {
			if slog.Default() != logger {
				t.Error("the default logger is not the one given to New")
			}
			if getenv("TABLE_NAME") != "plants" {
				t.Errorf("getenv(TABLE_NAME) = %q, want the environment's plants", getenv("TABLE_NAME"))
			}
			logger.Debug("built", "table", getenv("TABLE_NAME"))
			return built, nil
		},
		Handler: func(s *state) any {
			if s != built {
				t.Errorf("Handler got %v, want what New built, %v", s, built)
			}
			return want
		},
	}
	code := run(f, env(map[string]string{"LOG_LEVEL": "debug", "TABLE_NAME": "plants", "AWS_LAMBDA_RUNTIME_API": rt.host}), &out, func(h any) { got = h })
	if code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if got != want {
		t.Errorf("start got %v, want Handler's %v", got, want)
	}
	if ls := lines(t, &out); len(ls) != 1 || ls[0]["msg"] != "built" || ls[0]["level"] != "DEBUG" || ls[0]["table"] != "plants" {
		t.Errorf("log %q, want New's one DEBUG line \"built\" in JSON", &out)
	}
	if docs := rt.got(); len(docs) != 0 {
		t.Errorf("runtime API got %v, want nothing", docs)
	}
}

// tagged adds stack=test to every record, as emf.NewHandler adds its members.
type tagged struct{ slog.Handler }

func (h tagged) Handle(ctx context.Context, r slog.Record) error {
	r.AddAttrs(slog.String("stack", "test"))
	return h.Handler.Handle(ctx, r)
}

func TestRunLogsWrapsHandler(t *testing.T) {
	keepDefault(t)
	rt := newInitErrors(t)
	var out bytes.Buffer
	f := Function[int]{
		Logs: func(h slog.Handler) slog.Handler { return tagged{h} },
		New: func(_ context.Context, _ func(string) string, logger *slog.Logger) (int, error) {
			logger.Info("built")
			return 1, nil
		},
		Handler: func(int) any { return func() {} },
	}
	if code := run(f, env(map[string]string{"AWS_LAMBDA_RUNTIME_API": rt.host}), &out, func(any) {}); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if ls := lines(t, &out); len(ls) != 1 || ls[0]["msg"] != "built" || ls[0]["stack"] != "test" {
		t.Errorf("log %q, want the line \"built\" with the wrapper's stack=test", &out)
	}

	// The "init failed" line goes through the wrapper as well.
	out.Reset()
	f.New = func(context.Context, func(string) string, *slog.Logger) (int, error) {
		return 0, errors.New("no table")
	}
	if code := run(f, env(map[string]string{"AWS_LAMBDA_RUNTIME_API": rt.host}), &out, func(any) {}); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	if ls := lines(t, &out); len(ls) != 1 || ls[0]["msg"] != "init failed" || ls[0]["stack"] != "test" {
		t.Errorf("log %q, want the line \"init failed\" with the wrapper's stack=test", &out)
	}
}
