package apitest

// This file is the end-to-end suite that every way of serving Plant Store
// must pass over real HTTP (Run): the local API (make run) and the deployed
// chain on a laptop (make start-api). It sends every request of the error
// table (docs/design.md) that a client can provoke, a create, its replay
// and a conflict, and the token failures, and checks each answer against
// api/openapi.yaml. Where the two must differ (405 locally, 404 from the
// gateway) the Target says which it is.

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
)

// Target is a running server and the token settings it verifies with.
type Target struct {
	URL                     string
	Secret                  []byte // its HS256 secret, to sign tokens
	Issuer, Audience, Scope string // Scope: the required scope, "" for none
	// Gateway is true behind an API Gateway (or its stand-in): other methods
	// on /plants are missing routes (404) rather than 405.
	Gateway bool
}

// Token signs a token for the target; with ttl < 0 it has expired.
func (tg Target) Token(t testing.TB, audience, scope string, ttl time.Duration) string {
	t.Helper()
	issued := time.Now()
	if ttl < 0 {
		issued = issued.Add(2 * ttl) // expired well past the 60 s of skew
	}
	tok, err := auth.NewHS256Token(tg.Secret, auth.TokenSpec{Issuer: tg.Issuer, Audience: audience, Subject: "blackbox", Scope: scope, IssuedAt: issued, TTL: max(ttl, -ttl)})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type step struct {
	name, method, path, contentType, authorization, body string
	status                                               int
	code                                                 int32  // the Error code, 0 for success
	want                                                 string // the exact success body
}

// Run sends every step to tg and checks status, error code and contract.
func Run(t *testing.T, tg Target) {
	id := freshID()
	good := "Bearer " + tg.Token(t, tg.Audience, tg.Scope, time.Hour)
	plant := fmt.Sprintf(`{"id":%d,"name":"Monstera","tag":"indoor"}`, id)
	json := "application/json"
	steps := []step{
		{"create", "POST", "/plants", json, good, plant, 200, 0, `{"name":"Monstera","tag":"indoor"}`},
		{"replay", "POST", "/plants", json, good, plant, 200, 0, `{"name":"Monstera","tag":"indoor"}`},
		{"conflict", "POST", "/plants", json, good, fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id), 400, 40009, ""},
		{"create without tag", "POST", "/plants", "application/json; charset=utf-8", good, fmt.Sprintf(`{"id":%d,"name":"Fern","tag":null}`, id+1), 200, 0, `{"name":"Fern"}`},
		{"40001 not JSON", "POST", "/plants", json, good, `{"id":1,`, 400, 40001, ""},
		{"40001 not an object", "POST", "/plants", json, good, `[1]`, 400, 40001, ""},
		{"40001 duplicate keys", "POST", "/plants", json, good, `{"id":1,"id":2,"name":"x"}`, 400, 40001, ""},
		{"40001 empty", "POST", "/plants", json, good, ``, 400, 40001, ""},
		{"40002 content type", "POST", "/plants", "text/plain", good, plant, 400, 40002, ""},
		{"40003 too large", "POST", "/plants", json, good, `{"id":1,"name":"x","pad":"` + strings.Repeat("a", 65536) + `"}`, 400, 40003, ""},
		{"40004 missing name", "POST", "/plants", json, good, `{"id":1}`, 400, 40004, ""},
		{"40005 wrong type", "POST", "/plants", json, good, `{"id":"1","name":"x"}`, 400, 40005, ""},
		{"40005 not an integer", "POST", "/plants", json, good, `{"id":1.5,"name":"x"}`, 400, 40005, ""},
		{"40006 bad value", "POST", "/plants", json, good, `{"id":1,"name":""}`, 400, 40006, ""},
		{"401 no token", "POST", "/plants", json, "", plant, 401, 40100, ""},
		{"401 not bearer", "POST", "/plants", json, "Basic dXNlcjpwYXNz", plant, 401, 40100, ""},
		{"401 garbage", "POST", "/plants", json, "Bearer abc.def.ghi", plant, 401, 40100, ""},
		{"401 forged", "POST", "/plants", json, good + "x", plant, 401, 40100, ""},
		{"401 expired", "POST", "/plants", json, "Bearer " + tg.Token(t, tg.Audience, tg.Scope, -time.Hour), plant, 401, 40100, ""},
		{"401 wrong audience", "POST", "/plants", json, "Bearer " + tg.Token(t, "someone-else", tg.Scope, time.Hour), plant, 401, 40100, ""},
		{"401 before content type", "POST", "/plants", "text/plain", "", "x", 401, 40100, ""},
		{"404 no such route", "POST", "/nope", json, good, plant, 404, 40400, ""},
	}
	if tg.Scope != "" {
		steps = append(steps, step{"403 missing scope", "POST", "/plants", json, "Bearer " + tg.Token(t, tg.Audience, "plants/read", time.Hour), plant, 403, 40300, ""})
	}
	if tg.Gateway {
		steps = append(steps, step{"404 other method (gateway)", "GET", "/plants", "", good, "", 404, 40400, ""})
	} else {
		steps = append(steps, step{"405 other method (local)", "GET", "/plants", "", good, "", 405, 40500, ""})
	}
	client := &http.Client{Timeout: 60 * time.Second}
	for _, st := range steps {
		status, header, body := send(t, client, st.method, tg.URL+st.path, st.contentType, st.authorization, st.body)
		e := Check(t, st.method, st.path, status, header, body)
		if status != st.status || e.Error != st.code || (st.want != "" && string(body) != st.want) {
			t.Errorf("%s: got %d %s, want %d (error %d) %s", st.name, status, body, st.status, st.code, st.want)
		}
		if status == 401 && !strings.HasPrefix(header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s: 401 without a Bearer challenge", st.name)
		}
	}
}

// Post sends body to url as JSON, with token as its bearer token ("" sends
// none), and returns the answer.
func Post(t *testing.T, url, token, body string) (int, http.Header, []byte) {
	t.Helper()
	authorization := ""
	if token != "" {
		authorization = "Bearer " + token
	}
	return send(t, http.DefaultClient, http.MethodPost, url, "application/json", authorization, body)
}

// send makes one request and returns the answer.
func send(t *testing.T, client *http.Client, method, url, contentType, authorization, body string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return resp.StatusCode, resp.Header, got
}

// RunCreate checks that token creates a plant at url: the token a server
// prints must work.
func RunCreate(t *testing.T, url, token string) {
	t.Helper()
	body := fmt.Sprintf(`{"id":%d,"name":"printed token"}`, freshID())
	status, _, got := send(t, &http.Client{Timeout: 60 * time.Second}, http.MethodPost, url+"/plants", "application/json", "Bearer "+token, body)
	if status != 200 || string(got) != `{"name":"printed token"}` {
		t.Errorf("the printed token: %d %s, want 200", status, got)
	}
}

// freshID is a random positive id: the store may be persistent across runs.
func freshID() int64 { return rand.Int64N(1<<62) + 1 }
