package httpapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
)

const (
	issuer   = "plantstore-test"
	audience = "plantstore"
	scope    = "plants/write"
)

var secret = []byte("test-secret-test-secret-test-secret!")

func token(t testing.TB, scope string, ttl time.Duration) string {
	t.Helper()
	tok, err := auth.NewHS256Token(secret, auth.TokenSpec{Issuer: issuer, Audience: audience, Subject: "tester", Scope: scope, IssuedAt: time.Now(), TTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

func verifier(t testing.TB, requiredScope string) *auth.Verifier {
	t.Helper()
	v, err := auth.NewVerifier(context.Background(), auth.Config{Issuer: issuer, Audience: audience, HS256Secret: secret, RequiredScope: requiredScope})
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func openStore(t testing.TB) *boltstore.Store {
	t.Helper()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "plants.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// failingStore is a store that answers err, after delay unless ctx ends first.
type failingStore struct {
	err   error
	delay time.Duration
}

func (f failingStore) Create(ctx context.Context, _ plant.NewPlant) (bool, error) {
	select {
	case <-time.After(f.delay):
		return false, f.err
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

type request struct {
	method, path, contentType, authorization string
	body                                     string
}

// do sends req to h and checks the answer against the contract.
func do(t *testing.T, h http.Handler, req request) (*http.Response, apitest.Error, string) {
	t.Helper()
	if req.method == "" {
		req.method = http.MethodPost
	}
	if req.path == "" {
		req.path = "/plants"
	}
	r := httptest.NewRequest(req.method, req.path, strings.NewReader(req.body))
	if req.contentType != "-" {
		ct := req.contentType
		if ct == "" {
			ct = "application/json"
		}
		r.Header.Set("Content-Type", ct)
	}
	if req.authorization != "-" {
		a := req.authorization
		if a == "" {
			a = "Bearer " + token(t, scope, time.Hour)
		}
		r.Header.Set("Authorization", a)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	resp := w.Result()
	body, _ := io.ReadAll(resp.Body)
	e := apitest.Check(t, req.method, req.path, resp.StatusCode, resp.Header, body)
	for name, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"} {
		if got := resp.Header.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	return resp, e, string(body)
}

// padded is a valid body of exactly size bytes.
func padded(id int, size int) string {
	head := fmt.Sprintf(`{"id":%d,"name":"Big","pad":"`, id)
	return head + strings.Repeat("p", size-len(head)-2) + `"}`
}

func newHandler(t testing.TB, store plant.Store, requiredScope string) http.Handler {
	return httpapi.NewHandler(store, slog.New(slog.DiscardHandler), httpapi.RequireToken(verifier(t, requiredScope)))
}

func TestCreatePlant(t *testing.T) {
	t.Parallel()
	long := func(s string, n int) string { return strings.Repeat(s, n) }
	tests := []struct {
		name     string
		req      request
		wantCode int32 // 0 for 200
		wantBody string
	}{
		{"with tag", request{body: `{"id":1,"name":"Monstera","tag":"indoor"}`}, 0, `{"name":"Monstera","tag":"indoor"}`},
		{"without tag", request{body: `{"id":2,"name":"Fern"}`}, 0, `{"name":"Fern"}`},
		{"null tag", request{body: `{"id":3,"name":"Ivy","tag":null}`}, 0, `{"name":"Ivy"}`},
		{"other fields ignored", request{body: `{"id":4,"name":"Aloe","extra":{"a":[1,{"b":2}]},"x":null}`}, 0, `{"name":"Aloe"}`},
		{"negative id", request{body: `{"id":-5,"name":"Cactus"}`}, 0, `{"name":"Cactus"}`},
		{"max int64 id", request{body: `{"id":9223372036854775807,"name":"Max"}`}, 0, `{"name":"Max"}`},
		{"min int64 id", request{body: `{"id":-9223372036854775808,"name":"Min"}`}, 0, `{"name":"Min"}`},
		{"256 code points", request{body: `{"id":6,"name":"` + long("é", 256) + `"}`}, 0, `{"name":"` + long("é", 256) + `"}`},
		{"64-character tag", request{body: `{"id":7,"name":"T","tag":"` + long("t", 64) + `"}`}, 0, `{"name":"T","tag":"` + long("t", 64) + `"}`},
		{"charset utf-8", request{contentType: "application/json; charset=UTF-8", body: `{"id":8,"name":"Basil"}`}, 0, `{"name":"Basil"}`},
		{"media type case", request{contentType: "Application/JSON", body: `{"id":9,"name":"Mint"}`}, 0, `{"name":"Mint"}`},
		{"white space around", request{body: " \n\t{\"id\":10,\"name\":\"Sage\"}\r\n "}, 0, `{"name":"Sage"}`},
		{"scheme word lower case", request{authorization: "bearer " + token(t, scope, time.Hour), body: `{"id":11,"name":"Thyme"}`}, 0, `{"name":"Thyme"}`},
		{"escaped name", request{body: `{"id":12,"name":"Ro\u0073e \"red\""}`}, 0, `{"name":"Rose \"red\""}`},
		{"body of exactly 64 KiB", request{body: padded(13, httpapi.MaxBodyBytes)}, 0, `{"name":"Big"}`},

		{"not found", request{path: "/", body: `{}`}, httpapi.CodeNotFound, ""},
		{"not found singular", request{path: "/plant"}, httpapi.CodeNotFound, ""},
		{"not found trailing slash", request{path: "/plants/"}, httpapi.CodeNotFound, ""},
		{"not found sub path", request{path: "/plants/1"}, httpapi.CodeNotFound, ""},
		{"unclean path", request{path: "//plants"}, httpapi.CodeNotFound, ""},
		{"dot path", request{path: "/x/../plants"}, httpapi.CodeNotFound, ""},
		{"not found beats no token", request{path: "/nope", authorization: "-"}, httpapi.CodeNotFound, ""},
		{"GET", request{method: http.MethodGet}, httpapi.CodeMethodNotAllowed, ""},
		{"PUT", request{method: http.MethodPut, body: `{"id":1,"name":"x"}`}, httpapi.CodeMethodNotAllowed, ""},
		{"DELETE without token", request{method: http.MethodDelete, authorization: "-"}, httpapi.CodeMethodNotAllowed, ""},

		{"no Authorization", request{authorization: "-", body: `{"id":1,"name":"x"}`}, httpapi.CodeUnauthorized, ""},
		{"Basic", request{authorization: "Basic dXNlcjpwYXNz", body: `{"id":1,"name":"x"}`}, httpapi.CodeUnauthorized, ""},
		{"empty Bearer", request{authorization: "Bearer ", body: `{"id":1,"name":"x"}`}, httpapi.CodeUnauthorized, ""},
		{"garbage token", request{authorization: "Bearer abc.def.ghi"}, httpapi.CodeUnauthorized, ""},
		{"expired token", request{authorization: "Bearer " + token(t, scope, -2*time.Minute)}, httpapi.CodeUnauthorized, ""},
		{"token beats Content-Type", request{authorization: "-", contentType: "text/plain"}, httpapi.CodeUnauthorized, ""},
		{"no scope", request{authorization: "Bearer " + token(t, "", time.Hour), body: `{"id":1,"name":"x"}`}, httpapi.CodeForbidden, ""},
		{"other scope", request{authorization: "Bearer " + token(t, "plants/read", time.Hour)}, httpapi.CodeForbidden, ""},

		{"no Content-Type", request{contentType: "-", body: `{"id":1,"name":"x"}`}, httpapi.CodeContentType, ""},
		{"text/plain", request{contentType: "text/plain", body: `{"id":1,"name":"x"}`}, httpapi.CodeContentType, ""},
		{"other charset", request{contentType: "application/json; charset=latin1", body: `{"id":1,"name":"x"}`}, httpapi.CodeContentType, ""},
		{"json suffix type", request{contentType: "application/merge-patch+json", body: `{"id":1,"name":"x"}`}, httpapi.CodeContentType, ""},
		{"bad media type", request{contentType: "application/json; ;", body: `{"id":1,"name":"x"}`}, httpapi.CodeContentType, ""},
		{"Content-Type beats size", request{contentType: "text/plain", body: long("x", httpapi.MaxBodyBytes+1)}, httpapi.CodeContentType, ""},
		{"one byte too large", request{body: padded(14, httpapi.MaxBodyBytes+1)}, httpapi.CodeTooLarge, ""},
		{"size beats JSON", request{body: long("[", httpapi.MaxBodyBytes+1)}, httpapi.CodeTooLarge, ""},

		{"empty body", request{body: ``}, httpapi.CodeBadJSON, ""},
		{"blank body", request{body: "  \n"}, httpapi.CodeBadJSON, ""},
		{"array", request{body: `[{"id":1,"name":"x"}]`}, httpapi.CodeBadJSON, ""},
		{"null", request{body: `null`}, httpapi.CodeBadJSON, ""},
		{"number", request{body: `1`}, httpapi.CodeBadJSON, ""},
		{"string", request{body: `"plant"`}, httpapi.CodeBadJSON, ""},
		{"two objects", request{body: `{"id":1,"name":"x"}{"id":2,"name":"y"}`}, httpapi.CodeBadJSON, ""},
		{"trailing garbage", request{body: `{"id":1,"name":"x"} x`}, httpapi.CodeBadJSON, ""},
		{"trailing comma", request{body: `{"id":1,"name":"x",}`}, httpapi.CodeBadJSON, ""},
		{"truncated", request{body: `{"id":1,"name":"x`}, httpapi.CodeBadJSON, ""},
		{"single quotes", request{body: `{'id':1}`}, httpapi.CodeBadJSON, ""},
		{"invalid UTF-8", request{body: "{\"id\":1,\"name\":\"\xff\xfe\"}"}, httpapi.CodeBadJSON, ""},
		{"invalid UTF-8 in ignored field", request{body: "{\"id\":1,\"name\":\"x\",\"z\":\"\xc3\"}"}, httpapi.CodeBadJSON, ""},
		{"duplicate id", request{body: `{"id":1,"name":"x","id":2}`}, httpapi.CodeBadJSON, ""},
		{"duplicate name", request{body: `{"id":1,"name":"x","name":"y"}`}, httpapi.CodeBadJSON, ""},
		{"duplicate nested key", request{body: `{"id":1,"name":"x","o":{"a":1,"a":2}}`}, httpapi.CodeBadJSON, ""},
		{"same key in sibling objects is fine", request{body: `{"id":15,"name":"x","o":[{"a":1},{"a":2}],"p":{"id":3}}`}, 0, `{"name":"x"}`},
		{"nested too deep", request{body: `{"id":1,"name":"x","d":` + long("[", 40) + long("]", 40) + `}`}, httpapi.CodeBadJSON, ""},
		{"JSON beats fields", request{body: `{"id":"x"`}, httpapi.CodeBadJSON, ""},

		{"empty object", request{body: `{}`}, httpapi.CodeMissingField, ""},
		{"no name", request{body: `{"id":1}`}, httpapi.CodeMissingField, ""},
		{"no id", request{body: `{"name":"x"}`}, httpapi.CodeMissingField, ""},
		{"null id", request{body: `{"id":null,"name":"x"}`}, httpapi.CodeMissingField, ""},
		{"null name", request{body: `{"id":1,"name":null}`}, httpapi.CodeMissingField, ""},
		{"id in a nested object only", request{body: `{"o":{"id":1,"name":"x"}}`}, httpapi.CodeMissingField, ""},
		{"missing beats wrong type", request{body: `{"id":"1"}`}, httpapi.CodeMissingField, ""},
		{"missing beats bad value", request{body: `{"name":""}`}, httpapi.CodeMissingField, ""},

		{"string id", request{body: `{"id":"1","name":"x"}`}, httpapi.CodeWrongType, ""},
		{"fraction id", request{body: `{"id":1.0,"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"exponent id", request{body: `{"id":1e3,"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"id above int64", request{body: `{"id":9223372036854775808,"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"id below int64", request{body: `{"id":-9223372036854775809,"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"huge id", request{body: `{"id":` + long("9", 400) + `,"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"bool id", request{body: `{"id":true,"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"object id", request{body: `{"id":{},"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"array id", request{body: `{"id":[1],"name":"x"}`}, httpapi.CodeWrongType, ""},
		{"number name", request{body: `{"id":1,"name":5}`}, httpapi.CodeWrongType, ""},
		{"array name", request{body: `{"id":1,"name":["x"]}`}, httpapi.CodeWrongType, ""},
		{"number tag", request{body: `{"id":1,"name":"x","tag":5}`}, httpapi.CodeWrongType, ""},
		{"bool tag", request{body: `{"id":1,"name":"x","tag":false}`}, httpapi.CodeWrongType, ""},
		{"wrong type beats bad value", request{body: `{"id":1.5,"name":""}`}, httpapi.CodeWrongType, ""},

		{"empty name", request{body: `{"id":1,"name":""}`}, httpapi.CodeBadValue, ""},
		{"blank name", request{body: `{"id":1,"name":"   "}`}, httpapi.CodeBadValue, ""},
		{"Unicode blank name", request{body: `{"id":1,"name":"\u2003\u00a0\u3000"}`}, httpapi.CodeBadValue, ""},
		{"name of 257", request{body: `{"id":1,"name":"` + long("é", 257) + `"}`}, httpapi.CodeBadValue, ""},
		{"NUL in name", request{body: `{"id":1,"name":"a\u0000b"}`}, httpapi.CodeBadValue, ""},
		{"newline in name", request{body: `{"id":1,"name":"a\nb"}`}, httpapi.CodeBadValue, ""},
		{"DEL in name", request{body: `{"id":1,"name":"a\u007fb"}`}, httpapi.CodeBadValue, ""},
		{"empty tag", request{body: `{"id":1,"name":"x","tag":""}`}, httpapi.CodeBadValue, ""},
		{"tag of 65", request{body: `{"id":1,"name":"x","tag":"` + long("t", 65) + `"}`}, httpapi.CodeBadValue, ""},
		{"tab in tag", request{body: `{"id":1,"name":"x","tag":"a\tb"}`}, httpapi.CodeBadValue, ""},
		{"C1 control in name", request{body: `{"id":1,"name":"a\u0085b"}`}, httpapi.CodeBadValue, ""},
		{"line separator in name", request{body: `{"id":1,"name":"a\u2028b"}`}, httpapi.CodeBadValue, ""},
		{"bidi override in name", request{body: `{"id":1,"name":"\u202Egnp.exe"}`}, httpapi.CodeBadValue, ""},
		{"byte-order mark in tag", request{body: `{"id":1,"name":"x","tag":"\ufeffa"}`}, httpapi.CodeBadValue, ""},
		{"zero width space only", request{body: `{"id":1,"name":"\u200b"}`}, httpapi.CodeBadValue, ""},
		{"musical null notehead only", request{body: `{"id":1,"name":"\ud834\udd59"}`}, httpapi.CodeBadValue, ""},
		{"Egyptian blanks and a half fill space only", request{body: `{"id":1,"name":"\ud80d\udc41\ud80d\udc42\u303f"}`}, httpapi.CodeBadValue, ""},
		{"Khitan filler tag", request{body: `{"id":1,"name":"x","tag":"\ud81b\udfe4"}`}, httpapi.CodeBadValue, ""},
		{"noncharacter in name", request{body: `{"id":1,"name":"a\ufdd0"}`}, httpapi.CodeBadValue, ""},
		{"lone high surrogate in name", request{body: `{"id":1,"name":"a\ud800"}`}, httpapi.CodeBadValue, ""},
		{"lone low surrogate in name", request{body: `{"id":1,"name":"\udc00b"}`}, httpapi.CodeBadValue, ""},
		{"high surrogate then a letter", request{body: `{"id":1,"name":"\ud83cA"}`}, httpapi.CodeBadValue, ""},
		{"two high surrogates", request{body: `{"id":1,"name":"\ud83c\ud83c"}`}, httpapi.CodeBadValue, ""},
		{"lone surrogate in tag", request{body: `{"id":1,"name":"x","tag":"\udfff"}`}, httpapi.CodeBadValue, ""},
		{"escaped backslash before u is no escape", request{body: `{"id":91,"name":"a\\ud800"}`}, 0, `{"name":"a\\ud800"}`},
		{"surrogate pair", request{body: `{"id":92,"name":"\ud83c\udf3f"}`}, 0, `{"name":"🌿"}`},
		{"emoji ZWJ sequence", request{body: `{"id":93,"name":"👩\u200d🌾","tag":"❤\ufe0f"}`}, 0, `{"name":"👩‍🌾","tag":"❤️"}`},
		{"lone surrogate in an ignored field", request{body: `{"id":94,"name":"x","note":"\ud800"}`}, 0, `{"name":"x"}`},
	}
	h := newHandler(t, openStore(t), scope)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, e, body := do(t, h, tt.req)
			if tt.wantCode == 0 {
				if resp.StatusCode != http.StatusOK || body != tt.wantBody {
					t.Fatalf("got %d %s, want 200 %s", resp.StatusCode, body, tt.wantBody)
				}
				return
			}
			if e.Error != tt.wantCode {
				t.Fatalf("got %d %s, want error %d", resp.StatusCode, body, tt.wantCode)
			}
			if want := int(tt.wantCode / 100); resp.StatusCode != want {
				t.Errorf("status = %d, want %d", resp.StatusCode, want)
			}
		})
	}
}

func TestAuthenticateHeaders(t *testing.T) {
	t.Parallel()
	h := newHandler(t, openStore(t), scope)
	tests := []struct {
		authorization, want string
		status              int
	}{
		{"-", `Bearer`, 401},
		{"Basic abc", `Bearer`, 401},
		{"Bearer nope", `Bearer error="invalid_token"`, 401},
		{"Bearer " + token(t, "", time.Hour), `Bearer error="insufficient_scope"`, 403},
	}
	for _, tt := range tests {
		resp, _, _ := do(t, h, request{authorization: tt.authorization, body: `{"id":1,"name":"x"}`})
		if resp.StatusCode != tt.status || resp.Header.Get("WWW-Authenticate") != tt.want {
			t.Errorf("Authorization %.20q: %d WWW-Authenticate %q, want %d %q", tt.authorization, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), tt.status, tt.want)
		}
	}
	resp, _, _ := do(t, h, request{method: http.MethodGet})
	if got := resp.Header.Get("Allow"); got != "POST" {
		t.Errorf("405 Allow = %q, want POST", got)
	}
}

func TestMessagesNameEveryFieldProblem(t *testing.T) {
	t.Parallel()
	h := newHandler(t, openStore(t), "")
	_, e, _ := do(t, h, request{body: `{"name":"","tag":7}`})
	if e.Error != httpapi.CodeMissingField {
		t.Fatalf("error = %d, want %d", e.Error, httpapi.CodeMissingField)
	}
	for _, want := range []string{"id is required", "tag must be a string", "name must be 1 to 256 characters"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message %q does not say %q", e.Message, want)
		}
	}
}

func TestReplayAndConflict(t *testing.T) {
	t.Parallel()
	store := openStore(t)
	h := newHandler(t, store, "")
	steps := []struct {
		body     string
		status   int
		wantCode int32
	}{
		{`{"id":77,"name":"Orchid","tag":"flower"}`, 200, 0},
		{`{"tag":"flower","name":"Orchid","id":77,"note":"retry"}`, 200, 0},
		{`{"id":77,"name":"Orchid"}`, 400, httpapi.CodeConflict},
		{`{"id":77,"name":"Orchid","tag":"other"}`, 400, httpapi.CodeConflict},
		{`{"id":77,"name":"Rose","tag":"flower"}`, 400, httpapi.CodeConflict},
	}
	for i, s := range steps {
		resp, e, body := do(t, h, request{body: s.body})
		if resp.StatusCode != s.status || e.Error != s.wantCode {
			t.Errorf("step %d: got %d %s, want %d %d", i, resp.StatusCode, body, s.status, s.wantCode)
		}
	}
	got, err := store.Get(context.Background(), 77)
	if err != nil || got.Name != "Orchid" || got.Tag == nil || *got.Tag != "flower" {
		t.Errorf("stored %+v, %v; want the first plant unchanged", got, err)
	}
}

// A client that goes away while its create is under way is not a server
// fault: an info line says canceled, nothing is logged as an error, no 5xx.
func TestCanceledClientIsNotAServerFault(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	h := httpapi.NewHandler(failingStore{delay: time.Minute}, slog.New(slog.NewJSONHandler(&logs, nil)), httpapi.RequireToken(verifier(t, "")))
	ctx, cancel := context.WithCancel(context.Background())
	req := httptest.NewRequestWithContext(ctx, http.MethodPost, "/plants", strings.NewReader(`{"id":1,"name":"x"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token(t, "", time.Hour))
	rec := httptest.NewRecorder()
	time.AfterFunc(20*time.Millisecond, cancel) // the client leaves while the store works
	h.ServeHTTP(rec, req)
	if rec.Code >= 500 {
		t.Errorf("status %d for a client that left, want no 5xx", rec.Code)
	}
	line := logs.String()
	if !strings.Contains(line, `"outcome":"canceled"`) || !strings.Contains(line, `"level":"INFO"`) || strings.Contains(line, `"level":"ERROR"`) {
		t.Errorf("log %s, want one info line saying canceled", line)
	}
}

func TestStoreFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		store    plant.Store
		timeout  time.Duration
		status   int
		wantCode int32
	}{
		{"unavailable", failingStore{err: fmt.Errorf("put: %w", plant.ErrUnavailable)}, 0, 503, httpapi.CodeUnavailable},
		{"slow past the deadline", failingStore{delay: time.Minute}, 50 * time.Millisecond, 503, httpapi.CodeUnavailable},
		{"unexpected", failingStore{err: errors.New("ValidationException: secret internals arn:aws:dynamodb:eu-west-1:123")}, 0, 500, httpapi.CodeInternal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var logs bytes.Buffer
			h := httpapi.NewHandler(tt.store, slog.New(slog.NewJSONHandler(&logs, nil)), httpapi.RequireToken(verifier(t, "")))
			if tt.timeout > 0 {
				inner := h
				h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					ctx, cancel := context.WithTimeout(r.Context(), tt.timeout)
					defer cancel()
					inner.ServeHTTP(w, r.WithContext(ctx))
				})
			}
			resp, e, body := do(t, h, request{body: `{"id":1,"name":"x"}`})
			if resp.StatusCode != tt.status || e.Error != tt.wantCode {
				t.Fatalf("got %d %s, want %d %d", resp.StatusCode, body, tt.status, tt.wantCode)
			}
			if strings.Contains(body, "secret") || strings.Contains(body, "arn:") {
				t.Errorf("answer leaks internals: %s", body)
			}
			if tt.status == 503 && resp.Header.Get("Retry-After") == "" {
				t.Error("503 without Retry-After")
			}
			if !strings.Contains(logs.String(), `"level":"ERROR"`) {
				t.Errorf("a %d was not logged as an error: %s", tt.status, logs.String())
			}
		})
	}
}

func TestLogsOneLinePerRequestWithoutTokenOrBody(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	h := httpapi.NewHandler(openStore(t), slog.New(slog.NewJSONHandler(&logs, nil)), httpapi.RequireToken(verifier(t, "")))
	tok := token(t, "", time.Hour)
	bodies := []string{`{"id":5,"name":"SecretFernName","tag":"SecretTag"}`, `{"id":5,"name":"SecretFernName","tag":"SecretTag"}`, `{"id":"SecretBadId","name":"SecretFernName"}`}
	for _, b := range bodies {
		do(t, h, request{authorization: "Bearer " + tok, body: b})
	}
	do(t, h, request{authorization: "Bearer " + tok + "x", body: bodies[0]})
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d log lines for 4 requests:\n%s", len(lines), logs.String())
	}
	for _, secretPart := range []string{tok[:20], tok[len(tok)-20:], "SecretFernName", "SecretTag", "SecretBadId"} {
		if strings.Contains(logs.String(), secretPart) {
			t.Errorf("logs contain %q:\n%s", secretPart, logs.String())
		}
	}
	for i, want := range []string{`"outcome":"created"`, `"outcome":"replayed"`, `"code":40005`, `"code":40100`} {
		if !strings.Contains(lines[i], want) || !strings.Contains(lines[i], `"requestId"`) {
			t.Errorf("log line %d = %s, want %s and a requestId", i, lines[i], want)
		}
	}
	if !strings.Contains(lines[0], `"subject":"tester"`) {
		t.Errorf("log line lacks the subject: %s", lines[0])
	}
}
