package lambdaemu

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

type fake struct {
	mu    sync.Mutex
	calls []string
}

func (f *fake) Invoke(_ context.Context, fn string, payload []byte) ([]byte, bool, error) {
	f.mu.Lock()
	f.calls = append(f.calls, fn+" "+string(payload))
	f.mu.Unlock()
	if strings.Contains(string(payload), "fail") {
		return []byte(`{"errorMessage":"Unauthorized","errorType":"errorString"}`), true, nil
	}
	return []byte(`{"ok":true}`), false, nil
}

func (f *fake) count() int { f.mu.Lock(); defer f.mu.Unlock(); return len(f.calls) }

// What sam local start-lambda answers, case by case.
func TestInvokeAPI(t *testing.T) {
	t.Parallel()
	f := &fake{}
	srv := httptest.NewServer(NewInvokeAPI(f, []string{"CreatePlantFunction", "AuthorizerFunction"}, slog.New(slog.DiscardHandler)))
	defer srv.Close()
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		errorType, funcError     string
		bodyHas                  string
	}{
		{"invoke", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations", `{"a":1}`, nil, 200, "", "", `{"ok":true}`},
		{"empty body is {}", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations", ``, nil, 200, "", "", `{"ok":true}`},
		{"function error", "POST", "/2015-03-31/functions/AuthorizerFunction/invocations", `{"fail":1}`, nil, 200, "", "Unhandled", "Unauthorized"},
		{"full ARN with version", "POST", "/2015-03-31/functions/arn:aws:lambda:us-east-1:123456789012:function:CreatePlantFunction:7/invocations", `{}`, nil, 200, "", "", `{"ok":true}`},
		{"name with alias", "POST", "/2015-03-31/functions/CreatePlantFunction:live/invocations", `{}`, nil, 200, "", "", `{"ok":true}`},
		{"unknown function", "POST", "/2015-03-31/functions/Nope/invocations", `{}`, nil, 404, "ResourceNotFound", "", "Function not found: arn:aws:lambda:us-west-2:012345678901:function:Nope"},
		{"not JSON", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations", `{`, nil, 400, "InvalidRequestContent", "", "Could not parse request body into json"},
		{"query parameters", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations?Qualifier=1", `{}`, nil, 400, "InvalidRequestContent", "", "Query Parameters are not supported"},
		{"log type Tail", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations", `{}`, map[string]string{"X-Amz-Log-Type": "Tail"}, 501, "NotImplemented", "", "log-type: Tail is not supported"},
		{"dry run", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations", `{}`, map[string]string{"X-Amz-Invocation-Type": "DryRun"}, 501, "NotImplemented", "", "invocation-type: DryRun"},
		{"other path", "POST", "/2015-03-31/functions/CreatePlantFunction", `{}`, nil, 404, "PathNotFoundLocally", "", "PathNotFoundException"},
		{"other method", "GET", "/2015-03-31/functions/CreatePlantFunction/invocations", ``, nil, 405, "MethodNotAllowedLocally", "", "MethodNotAllowedException"},
		{"too large", "POST", "/2015-03-31/functions/CreatePlantFunction/invocations", `"` + strings.Repeat("x", maxPayload) + `"`, nil, 413, "RequestEntityTooLargeException", "", "smaller than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, srv.URL+tt.path, strings.NewReader(tt.body))
			for k, v := range tt.header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || resp.Header.Get("X-Amzn-Errortype") != tt.errorType ||
				resp.Header.Get("X-Amz-Function-Error") != tt.funcError || !strings.Contains(string(b), tt.bodyHas) {
				t.Errorf("%d %v %s; want %d, errortype %q, function error %q, body with %q", resp.StatusCode, resp.Header, b, tt.status, tt.errorType, tt.funcError, tt.bodyHas)
			}
			if tt.errorType != "" {
				var e struct{ Type, Message string }
				if json.Unmarshal(b, &e) != nil || e.Type == "" || e.Message == "" {
					t.Errorf("error body %s is not SAM's {Type, Message}", b)
				}
			}
		})
	}
	// An Event invocation answers 202 at once and runs the function after.
	before := f.count()
	req, _ := http.NewRequest("POST", srv.URL+"/2015-03-31/functions/CreatePlantFunction/invocations", strings.NewReader(`{}`))
	req.Header.Set("X-Amz-Invocation-Type", "Event")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 202 {
		t.Fatalf("Event: %v %v, want 202", resp, err)
	}
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); f.count() == before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the Event invocation never ran")
		}
	}
}

func TestFunctionName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"CreatePlantFunction":      "CreatePlantFunction",
		"CreatePlantFunction:live": "CreatePlantFunction",
		"arn:aws:lambda:us-east-1:123456789012:function:CreatePlantFunction":         "CreatePlantFunction",
		"arn:aws:lambda:us-east-1:123456789012:function:CreatePlantFunction:$LATEST": "CreatePlantFunction",
		"123456789012:function:CreatePlantFunction":                                  "CreatePlantFunction",
	} {
		if got := FunctionName(in); got != want {
			t.Errorf("FunctionName(%q) = %q, want %q", in, got, want)
		}
	}
}
