package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
	"github.com/plantstore/plantstore/samlocal/trace"
	"github.com/plantstore/plantstore/tools/watchtest"
)

// make run TRACE=1: every request prints one line with the parts make run
// has (the token check and the store call, each with its times, and the
// answer), the page shows a request with its steps and log lines and
// refuses another site, and the terminal gets the log lines LOG_LEVEL asks
// for (info), not the debug step lines the trace is made of.
func TestEveryRequestIsTraced(t *testing.T) {
	t.Parallel()
	l := launchTraced(t)
	banner, stdout, stderr := l.Banner, l.Stdout, l.Stderr
	id := time.Now().UnixNano()
	requests := []struct {
		name, path, token, body string
		status                  int
		line                    string // what the line says after the time
	}{
		{"create", "/plants", banner.Token, fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id), 200,
			`POST /plants 200 created \S+ \| token \+\S+ \S+ accepted, subject local-developer \| store Create \+\S+ \S+ created`},
		{"replay", "/plants", banner.Token, fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id), 200,
			`POST /plants 200 replayed \S+ \| token \+\S+ \S+ accepted, subject local-developer \| store Create \+\S+ \S+ replayed`},
		{"conflict", "/plants", banner.Token, fmt.Sprintf(`{"id":%d,"name":"Other"}`, id), 400,
			`POST /plants 400 error 40009 \S+ \| token \+\S+ \S+ accepted, subject local-developer \| store Create \+\S+ \S+ exists`},
		{"bad token", "/plants", banner.Token + "x", `{}`, 401,
			`POST /plants 401 error 40100 \S+ \| token \+\S+ \S+ refused, reason bad_signature`},
		{"no route", "/nope", "", `{}`, 404, `POST /nope 404 error 40400 \S+`},
	}
	traces := map[string]string{}
	for _, r := range requests {
		status, header, _ := apitest.Post(t, banner.URL+r.path, r.token, r.body)
		traceID := header.Get(trace.TraceHeader)
		if status != r.status || traceID == "" {
			t.Fatalf("%s: %d, trace %q", r.name, status, traceID)
		}
		traces[r.name] = traceID
		stdout.WaitMatch(t, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d `+r.line+`$`))
	}

	// The conflict's page: its steps and the local API's lines of it.
	// The printed link carries the run's key; the page wants it.
	link := stdout.WaitMatch(t, regexp.MustCompile(`Requests, each with its steps and log lines: (\S+)/requests\?key=(\S+) `))
	m := regexp.MustCompile(`: (\S+)/requests\?key=(\S+) `).FindStringSubmatch(link)
	if resp, err := http.Get(banner.URL + trace.PagePrefix + "requests"); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("the requests page without the run's key: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	resp, err := http.Get(m[1] + "/requests/" + traces["conflict"] + "?key=" + m[2])
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"store Create", "exists", "&#34;msg&#34;: &#34;request&#34;", "&#34;msg&#34;: &#34;store&#34;", "40009"} {
		if resp.StatusCode != 200 || !strings.Contains(string(page), want) {
			t.Errorf("the conflict's page (%d) lacks %q:\n%s", resp.StatusCode, want, page)
		}
	}
	if status, _, body := devservertest.AsAPage(t, banner.URL+trace.PagePrefix+"requests", "attacker.example", nil, ""); status != http.StatusForbidden {
		t.Errorf("a page of another site read the requests: %d %s", status, body)
	}

	l.Stop()
	logs := stderr.String()
	if strings.Contains(logs, `"level":"DEBUG"`) || strings.Count(logs, `"msg":"request"`) != len(requests) {
		t.Errorf("the terminal's log lines at LOG_LEVEL info: want %d request lines, no debug lines:\n%s", len(requests), logs)
	}
}

// launchTraced runs make run TRACE=1's front on the repository with an
// embedded store of the test's own, until the test ends.
func launchTraced(t *testing.T) *watchtest.Launched {
	t.Helper()
	env := append(os.Environ(), "PORT=0", "LOG_LEVEL=", "STORE_PATH="+filepath.Join(t.TempDir(), "plants.db"))
	return watchtest.Launch(t, true, func(ctx context.Context, stdout, stderr io.Writer) error {
		return run(ctx, env, stdout, stderr, "../../..", false)
	})
}
