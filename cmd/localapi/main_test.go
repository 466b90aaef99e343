package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/samlocal/devserver"
)

// syncBuffer is an io.Writer that the server writes and the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

type server struct {
	url, token string
	stdout     *syncBuffer
	stderr     *syncBuffer
	stop       func() error
}

// start calls run on port 0 (or serve, when adjust changes the
// configuration) and waits until it serves.
func start(t *testing.T, vars map[string]string, adjust ...func(*config)) *server {
	t.Helper()
	vars["PORT"] = "0"
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{stdout: &syncBuffer{}, stderr: &syncBuffer{}}
	done := make(chan error, 1)
	if len(adjust) == 0 {
		go func() { done <- run(ctx, []string{"localapi"}, env(vars), s.stdout, s.stderr) }()
	} else {
		cfg, err := loadConfig(env(vars))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range adjust {
			a(&cfg)
		}
		go func() { done <- serve(ctx, cfg, s.stdout, s.stderr) }()
	}
	s.stop = func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			t.Fatal("run did not return after cancel")
			return nil
		}
	}
	deadline := time.Now().Add(60 * time.Second) // a start, however slow the machine; only a hang fails
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("run returned early: %v\nstderr: %s", err, s.stderr)
		default:
		}
		var banner devserver.Banner
		for _, line := range strings.Split(s.stdout.String(), "\n") {
			banner.Line(line)
		}
		if banner.Complete(wantToken(vars)) {
			s.url, s.token = banner.URL, banner.Token
			return s
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("server did not start: %s", s.stdout)
	return nil
}

func (s *server) post(t *testing.T, method, path, authorization, body string) (int, apitest.Error, string) {
	t.Helper()
	req, err := http.NewRequest(method, s.url+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, _ := io.ReadAll(resp.Body)
	e := apitest.Check(t, method, path, resp.StatusCode, resp.Header, got)
	return resp.StatusCode, e, string(got)
}

func TestRunServesOverHTTP(t *testing.T) {
	t.Parallel()
	storePath := filepath.Join(t.TempDir(), "data", "plants.db")
	s := start(t, map[string]string{"STORE_PATH": storePath})
	if s.token == "" {
		t.Fatalf("no token printed:\n%s", s.stdout)
	}
	if !strings.Contains(s.stdout.String(), "curl -i "+s.url+"/plants -H 'Authorization: Bearer "+s.token+"'") {
		t.Errorf("no curl line printed:\n%s", s.stdout)
	}
	bearer := "Bearer " + s.token
	steps := []struct {
		name, method, path, authorization, body string
		status                                  int
		code                                    int32
		want                                    string
	}{
		{"create", "POST", "/plants", bearer, `{"id":1,"name":"Monstera","tag":"indoor"}`, 200, 0, `{"name":"Monstera","tag":"indoor"}`},
		{"replay", "POST", "/plants", bearer, `{"id":1,"name":"Monstera","tag":"indoor"}`, 200, 0, `{"name":"Monstera","tag":"indoor"}`},
		{"conflict", "POST", "/plants", bearer, `{"id":1,"name":"Fern"}`, 400, 40009, ""},
		{"invalid", "POST", "/plants", bearer, `{"id":2,"name":""}`, 400, 40006, ""},
		{"no token", "POST", "/plants", "", `{"id":3,"name":"x"}`, 401, 40100, ""},
		{"forged token", "POST", "/plants", bearer + "x", `{"id":3,"name":"x"}`, 401, 40100, ""},
		{"not found", "POST", "/nope", "", ``, 404, 40400, ""},
		{"method", "GET", "/plants", bearer, ``, 405, 40500, ""},
	}
	for _, st := range steps {
		status, e, body := s.post(t, st.method, st.path, st.authorization, st.body)
		if status != st.status || e.Error != st.code || (st.want != "" && body != st.want) {
			t.Errorf("%s: got %d %s, want %d %d %s", st.name, status, body, st.status, st.code, st.want)
		}
	}
	if err := s.stop(); err != nil {
		t.Fatalf("run: %v", err)
	}
	if n := strings.Count(s.stderr.String(), `"msg":"request"`); n != len(steps) {
		t.Errorf("%d request log lines for %d requests:\n%s", n, len(steps), s.stderr)
	}
	if strings.Contains(s.stderr.String(), s.token[len(s.token)-16:]) || strings.Contains(s.stderr.String(), "Monstera") {
		t.Errorf("the log holds the token or a body:\n%s", s.stderr)
	}
	// The acknowledged plant is in the file after shutdown.
	store, err := boltstore.Open(storePath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if p, err := store.Get(context.Background(), 1); err != nil || p.Name != "Monstera" {
		t.Errorf("stored plant 1 = %+v, %v", p, err)
	}
}

// TOKEN_SCOPE picks the printed token's scope: with another scope than the
// required one, the printed token is refused with 403.
func TestTokenScope(t *testing.T) {
	t.Parallel()
	s := start(t, map[string]string{
		"STORE_PATH": filepath.Join(t.TempDir(), "plants.db"), "AUTH_REQUIRED_SCOPE": "plants/write", "TOKEN_SCOPE": "plants/read",
	})
	defer s.stop()
	if status, e, body := s.post(t, "POST", "/plants", "Bearer "+s.token, `{"id":1,"name":"x"}`); status != 403 || e.Error != 40300 {
		t.Errorf("a printed token of scope plants/read where plants/write is required: %d %s, want 403/40300", status, body)
	}
}

func TestRunWithGivenSecretAndScope(t *testing.T) {
	t.Parallel()
	secret := "a-given-secret-of-at-least-32-bytes!!"
	s := start(t, map[string]string{
		"STORE_PATH": filepath.Join(t.TempDir(), "plants.db"), "AUTH_HS256_SECRET": secret,
		"AUTH_ISSUER": "https://issuer.test", "AUTH_AUDIENCE": "aud-test", "AUTH_REQUIRED_SCOPE": "plants/write",
	})
	defer s.stop()
	if status, _, body := s.post(t, "POST", "/plants", "Bearer "+s.token, `{"id":1,"name":"x"}`); status != 200 {
		t.Errorf("printed token: %d %s", status, body)
	}
	mint := func(scope string) string {
		tok, err := auth.NewHS256Token([]byte(secret), auth.TokenSpec{Issuer: "https://issuer.test", Audience: "aud-test", Subject: "ci", Scope: scope, IssuedAt: time.Now(), TTL: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		return "Bearer " + tok
	}
	if status, _, body := s.post(t, "POST", "/plants", mint("plants/write"), `{"id":2,"name":"y"}`); status != 200 {
		t.Errorf("own token with scope: %d %s", status, body)
	}
	if status, e, _ := s.post(t, "POST", "/plants", mint("plants/read"), `{"id":3,"name":"z"}`); status != 403 || e.Error != 40300 {
		t.Errorf("own token without scope: %d %d, want 403 40300", status, e.Error)
	}
}

func TestRunRejectsBadConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := map[string]map[string]string{
		"bad PORT":          {"PORT": "http"},
		"PORT out of range": {"PORT": "70000"},
		"bad LOG_LEVEL":     {"LOG_LEVEL": "loud"},
		"short secret":      {"AUTH_HS256_SECRET": "short"},
		"http JWKS":         {"AUTH_JWKS_URL": "http://keys.example/jwks.json"},
		"two key sources":   {"AUTH_HS256_SECRET": "a-given-secret-of-at-least-32-bytes!!", "AUTH_JWKS_URL": "https://keys.example/jwks.json"},
		"store is a dir":    {"STORE_PATH": dir},
	}
	for name, vars := range tests {
		var stdout, stderr bytes.Buffer
		if _, ok := vars["STORE_PATH"]; !ok {
			vars["STORE_PATH"] = filepath.Join(dir, name+".db")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := run(ctx, []string{"localapi"}, env(vars), &stdout, &stderr)
		cancel()
		if err == nil {
			t.Errorf("%s: run succeeded", name)
		}
		if strings.Contains(stdout.String(), "listening") {
			t.Errorf("%s: served with a bad configuration", name)
		}
	}
	if err := run(context.Background(), []string{"localapi", "extra"}, env(nil), io.Discard, io.Discard); err == nil {
		t.Error("run accepted an argument")
	}
}

// With a JWKS URL the local API verifies as the deployed authorizer does:
// JWKS alone. It makes up no HS256 secret beside the URL, prints no token,
// and an HS256 token is refused (with no fetch: the algorithm is not one
// the JWKS admits).
func TestRunWithJWKSMakesNoSecret(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"STORE_PATH": filepath.Join(t.TempDir(), "plants.db"), "AUTH_JWKS_URL": "http://127.0.0.1:1/jwks.json"}
	cfg, err := loadConfig(env(vars))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.auth.HS256Secret != nil || cfg.generated {
		t.Fatalf("a JWKS URL given, and the configuration holds an HS256 secret (generated %v)", cfg.generated)
	}
	s := start(t, vars)
	defer s.stop()
	if s.token != "" || strings.Contains(s.stdout.String(), "Bearer") {
		t.Errorf("a token was printed with a JWKS URL:\n%s", s.stdout)
	}
	tok, err := auth.NewHS256Token(make([]byte, 32), auth.TokenSpec{Issuer: "plantstore-local", Audience: "plantstore", Subject: "x", IssuedAt: time.Now(), TTL: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if status, e, body := s.post(t, "POST", "/plants", "Bearer "+tok, `{"id":1,"name":"x"}`); status != 401 || e.Error != 40100 {
		t.Errorf("an HS256 token with a JWKS URL: %d %s, want 401/40100", status, body)
	}
}

// wantToken says whether the server prints a token: whenever it holds an
// HS256 secret, given or generated.
func wantToken(vars map[string]string) bool {
	return vars["AUTH_HS256_SECRET"] != "" || vars["AUTH_JWKS_URL"] == ""
}

// The black-box suite that make start-api passes too.
func TestBlackBox(t *testing.T) {
	t.Parallel()
	secret := "a-black-box-secret-of-at-least-32-bytes"
	s := start(t, map[string]string{
		"STORE_PATH": filepath.Join(t.TempDir(), "plants.db"), "AUTH_HS256_SECRET": secret,
		"AUTH_ISSUER": "https://issuer.test", "AUTH_AUDIENCE": "aud-test", "AUTH_REQUIRED_SCOPE": "plants/write",
	})
	defer s.stop()
	apitest.Run(t, apitest.Target{URL: s.url, Secret: []byte(secret), Issuer: "https://issuer.test", Audience: "aud-test", Scope: "plants/write"})
}

// A client that half-closes its connection after a valid POST (shutdown of
// its write side) makes net/http cancel the request: that is logged at info
// as canceled, never as a 5xx or an error, and each create is stored whole
// or not at all.
func TestHalfClosedClientsAreNotServerFaults(t *testing.T) {
	t.Parallel()
	storePath := filepath.Join(t.TempDir(), "plants.db")
	s := start(t, map[string]string{"STORE_PATH": storePath})
	host := strings.TrimPrefix(s.url, "http://")
	pad := strings.Repeat("p", 60<<10)
	const n = 20
	for i := range n {
		body := fmt.Sprintf(`{"id":%d,"name":"half %d","pad":"%s"}`, i, i, pad)
		conn, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(conn, "POST /plants HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", host, s.token, len(body), body)
		conn.(*net.TCPConn).CloseWrite()
		io.Copy(io.Discard, conn) // whatever comes, until the server closes
		conn.Close()
	}
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	logs := s.stderr.String()
	if strings.Contains(logs, `"level":"ERROR"`) || regexp.MustCompile(`"status":5\d\d`).MatchString(logs) {
		t.Errorf("a half-closed client was logged as a server fault:\n%s", logs)
	}
	if got := strings.Count(logs, `"msg":"request"`); got != n {
		t.Errorf("%d request lines for %d requests", got, n)
	}
	store, err := boltstore.Open(storePath, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for i := range n {
		p, err := store.Get(context.Background(), int64(i))
		if err == nil && p.Name != fmt.Sprintf("half %d", i) {
			t.Errorf("plant %d stored as %+v", i, p)
		}
	}
}

// make run runs the built binary: Ctrl-C (SIGINT), a kill (SIGTERM) and
// a closed terminal (SIGHUP) end it with status 0 and one "stopped" line,
// its store closed; a bad PORT is one line on stderr and status 1. The
// process is this test binary running main (TestMain), as a build of
// cmd/localapi would: the same main, signals and exit codes.
func TestTheBinaryStopsCleanly(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to send on Windows")
	}
	t.Parallel()
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP} {
		stdout.Reset()
		stderr.Reset()
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), runMain+"=1", "PORT=0", "STORE_PATH="+filepath.Join(t.TempDir(), "p.db"))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for sc.Scan() && !strings.Contains(sc.Text(), "listening on") {
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		for sc.Scan() {
			stdout.WriteString(sc.Text() + "\n")
		}
		if err := cmd.Wait(); err != nil {
			t.Errorf("after %v: %v, want exit status 0\nstderr:\n%s", sig, err, stderr.String())
		}
		if n := strings.Count(stdout.String(), "stopped"); n != 1 {
			t.Errorf("after %v: %d stopped lines, want 1:\n%s", sig, n, stdout.String())
		}
	}

	stderr.Reset()
	bad := exec.Command(bin)
	bad.Env = append(os.Environ(), runMain+"=1", "PORT=http")
	bad.Stderr = &stderr
	err = bad.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Errorf("PORT=http: %v, want exit status 1", err)
	}
	if lines := strings.Split(strings.TrimSpace(stderr.String()), "\n"); len(lines) != 1 || !strings.Contains(lines[0], "PORT") {
		t.Errorf("PORT=http printed %q, want one line naming PORT", stderr.String())
	}
}
