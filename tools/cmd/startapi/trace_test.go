package startapi

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/samlocal/trace"
)

// send posts body to url/plants with token and returns the status and the
// trace id start-api names in its answer.
func send(t *testing.T, url, token, body string) (int, string) {
	t.Helper()
	status, header, _ := apitest.Post(t, url+"/plants", token, body)
	return status, header.Get(trace.TraceHeader)
}

// Every request prints one line naming its steps with their times: a
// created plant shows the route, the authorizer's cache miss and decision,
// both functions (cold, with their init), and the conditional PutItem that
// held; a repeat of its id with another name shows the cache hit, the warm
// function, the condition that failed and the GetItem that read the old
// plant; a bad token shows the authorizer's refusal and its reason; an
// unknown path shows only the route.
func TestEveryRequestPrintsItsSteps(t *testing.T) {
	t.Parallel()
	banner, out := startAPIOut(t, bootstrapDir(t))
	id := time.Now().UnixNano()
	if status, _ := send(t, banner.URL, banner.Token, fmt.Sprintf(`{"id":%d,"name":"Fern"}`, id)); status != 200 {
		t.Fatalf("create: %d", status)
	}
	out.WaitMatch(t, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d POST /plants 200 created \S+ \| route \+\S+ POST /plants → CreatePlantFunction \| authorizer \+\S+ \S+ cache miss, allowed, principal local-developer \| AuthorizerFunction \+\S+ \S+ cold, init \S+ \| CreatePlantFunction \+\S+ \S+ cold, init \S+ \| DynamoDB PutItem \+\S+ \S+ condition held$`))

	if status, _ := send(t, banner.URL, banner.Token, fmt.Sprintf(`{"id":%d,"name":"Other"}`, id)); status != 400 {
		t.Fatalf("conflict: %d", status)
	}
	out.WaitMatch(t, regexp.MustCompile(`(?m)^\S+ POST /plants 400 error 40009 \S+ \| route .* \| authorizer \+\S+ \S+ cache hit, allowed, principal local-developer \| CreatePlantFunction \+\S+ \S+ warm \| DynamoDB PutItem \+\S+ \S+ condition failed \(ConditionalCheckFailedException\) \| DynamoDB GetItem \+\S+ \S+ ok$`))

	if status, _ := send(t, banner.URL, "not.a.jwt", `{}`); status != 401 {
		t.Fatalf("bad token: %d", status)
	}
	out.WaitMatch(t, regexp.MustCompile(`(?m)^\S+ POST /plants 401 error 40100 UNAUTHORIZED \S+ \| route .* \| authorizer \+\S+ \S+ cache miss, refused \(Unauthorized\), reason \w+ \| AuthorizerFunction \+\S+ \S+ warm, failed: .*$`))

	resp, err := http.Get(banner.URL + "/nope")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	out.WaitMatch(t, regexp.MustCompile(`(?m)^\S+ GET /nope 404 error 40400 MISSING_AUTHENTICATION_TOKEN \S+ \| route \+\S+ no resource or method matches$`))
}

func bootstrapDir(t *testing.T) string {
	var dir string
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction"} {
		dir = filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, fn)))
	}
	return dir
}

// chromium finds Chromium (Debian's package, make chromium); without it the
// test skips, or fails under CI.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" && os.Getenv("NO_BROWSER") != "1" {
		t.Fatal("no Chromium on PATH (.ci/run installs Debian's package; make test sets NO_BROWSER=1 where none is found)")
	}
	t.Skip("no Chromium on PATH (.ci/run installs Debian's package; make test sets NO_BROWSER=1 where none is found)")
	return ""
}

// The page, in a real headless Chromium: the list names the requests sent
// with their status and steps; a request's page shows its steps with times
// and its functions' log lines (the createplant request line with the
// Lambda request id); the explorer, built from api/openapi.yaml, sends its
// example with the printed token and shows the answer and a link to its
// trace. The browser gets there by the pages' own links from the printed
// one, which alone carries the key (list, a trace, the explorer, the
// explorer's trace link). Every file comes from start-api: a request to
// any other origin fails the test, and so does the key in a request that
// is not for a page (a Referer to the API). Then the page sends the browser to a
// server on another loopback port, as any link could: it must receive
// nothing of the key (cookies do not isolate ports, RFC 6265 section 8.5,
// so a cookie the pages set would go there). The screenshots are real
// pictures of the pages; SCREENSHOT=path keeps the request's
// (docs/trace.png is one).
func TestThePageShowsEachRequest(t *testing.T) {
	t.Parallel()
	browser := chromium(t)
	banner, out := startAPIOut(t, bootstrapDir(t))
	pageLink := regexp.MustCompile(`Requests, each with its steps and log lines: (\S+) `).FindStringSubmatch(out.WaitMatch(t, regexp.MustCompile(`Requests, each with its steps and log lines: \S+ `)))[1]
	key := pageLink[strings.Index(pageLink, "?key=")+len("?key="):]
	id := time.Now().UnixNano()
	if status, _ := send(t, banner.URL, banner.Token, fmt.Sprintf(`{"id":%d,"name":"Monstera","tag":"indoor"}`, id)); status != 200 {
		t.Fatalf("create: %d", status)
	}
	_, conflict := send(t, banner.URL, banner.Token, fmt.Sprintf(`{"id":%d,"name":"Other"}`, id))
	send(t, banner.URL, "", `{}`)

	// Another server on the same loopback host, another port: what a
	// local user's own server would receive.
	var mu sync.Mutex
	var other []string
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		mu.Lock()
		other = append(other, fmt.Sprintf("%s %s %q", req.Method, req.URL, req.Header))
		mu.Unlock()
		_, _ = io.WriteString(w, `<!doctype html><title>another port</title><p id="elsewhere">another port</p>`)
	}))
	defer b.Close()
	u, _ := url.Parse(banner.URL)
	otherOrigin := "http://" + net.JoinHostPort(u.Hostname(), strconv.Itoa(b.Listener.Addr().(*net.TCPAddr).Port))
	otherURL := otherOrigin + trace.PagePrefix + "elsewhere" // the pages' path: a cookie scoped to it goes there too

	// The allocator's cancel kills the browser, which leaves its singleton
	// socket's folder in TMPDIR: there the test's own folder. Its profile
	// goes there too: chromedp's own (a chromedp-runner* folder in /tmp)
	// is removed by a goroutine after the browser exits, and was found
	// left behind after a run.
	tmp := t.TempDir()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1280, 800),
		chromedp.Env("TMPDIR="+tmp), chromedp.UserDataDir(filepath.Join(tmp, "profile")))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(ctx, 2*time.Minute) // catches a hang only
	defer cancelTimeout()
	var loaded, elsewhere []string
	chromedp.ListenTarget(ctx, func(ev any) {
		if e, ok := ev.(*network.EventRequestWillBeSent); ok {
			mu.Lock()
			defer mu.Unlock()
			loaded = append(loaded, e.Request.URL)
			if !strings.HasPrefix(e.Request.URL, banner.URL+"/") && !strings.HasPrefix(e.Request.URL, otherOrigin+"/") {
				elsewhere = append(elsewhere, e.Request.URL)
			}
			if !strings.HasPrefix(e.Request.URL, banner.URL+trace.PagePrefix) && strings.Contains(fmt.Sprint(e.Request.Headers), key) {
				elsewhere = append(elsewhere, fmt.Sprintf("%s with the key in %v", e.Request.URL, e.Request.Headers))
			}
		}
	})

	var rows []string
	var shot []byte
	if err := chromedp.Run(ctx,
		network.Enable(),
		chromedp.Navigate(pageLink),
		chromedp.WaitVisible(`#requests tr.trace`),
		chromedp.Evaluate(`[...document.querySelectorAll("#requests tr.trace")].map(r => r.innerText.replace(/\s+/g, " ").trim())`, &rows),
		chromedp.FullScreenshot(&shot, 100),
	); err != nil {
		t.Fatal(err)
	}
	want := []*regexp.Regexp{ // newest first
		regexp.MustCompile(`^\S+ POST /plants 401 40100 UNAUTHORIZED \S+$`),
		regexp.MustCompile(`^\S+ POST /plants 400 40009 \S+$`),
		regexp.MustCompile(`^\S+ POST /plants 200 created \S+$`),
	}
	if len(rows) != len(want) {
		t.Fatalf("the list shows %d requests, want %d: %q", len(rows), len(want), rows)
	}
	for i, re := range want {
		if !re.MatchString(rows[i]) {
			t.Errorf("row %d %q, want %s", i, rows[i], re)
		}
	}
	checkScreenshot(t, shot, "")

	var steps []string
	var logs string
	if err := chromedp.Run(ctx,
		// A click by script finds the row when it runs: the list is drawn
		// again as requests arrive, and a node found before (chromedp.Click)
		// can be gone by the click ("Could not find node with given id").
		chromedp.Evaluate(`document.querySelector('#requests tr.trace[data-id="`+conflict+`"] a').click()`, nil),
		chromedp.WaitVisible(`#steps tr.step`),
		chromedp.Evaluate(`[...document.querySelectorAll("#steps tr.step td.name")].map(td => td.innerText)`, &steps),
		chromedp.Text(`#logs`, &logs),
		chromedp.FullScreenshot(&shot, 100),
	); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(steps, ", "); got != "route, authorizer, CreatePlantFunction, DynamoDB PutItem, DynamoDB GetItem" {
		t.Errorf("the conflict's steps: %s", got)
	}
	checkScreenshot(t, shot, os.Getenv("SCREENSHOT"))
	if !strings.Contains(logs, `"msg": "request"`) || !strings.Contains(logs, `"code": 40009`) || !strings.Contains(logs, `"requestId"`) {
		t.Errorf("the conflict's log lines do not show createplant's request line:\n%s", logs)
	}

	var status, answer, link, opened string
	if err := chromedp.Run(ctx,
		chromedp.Click(`nav a[href^="/_samlocal/explorer"]`),
		chromedp.WaitVisible(`section.operation[data-path="/plants"] button.send`),
		chromedp.SetValue(`section.operation textarea.body`, fmt.Sprintf(`{"id": %d, "name": "Monstera", "tag": "indoor"}`, id+1)),
		chromedp.Click(`section.operation button.send`),
		chromedp.WaitVisible(`.answer[data-status]`),
		chromedp.Text(`.answer .status`, &status),
		chromedp.Text(`.answer .answer-body`, &answer),
		chromedp.AttributeValue(`.answer .trace-link`, "href", &link, nil),
		chromedp.Click(`.answer .trace-link`),
		chromedp.WaitVisible(`#trace`),
		chromedp.AttributeValue(`#trace`, "data-id", &opened, nil),
	); err != nil {
		t.Fatal(err)
	}
	if status != "200" || !strings.Contains(answer, `"name": "Monstera"`) || !strings.HasPrefix(link, "/_samlocal/requests/"+opened+"?") {
		t.Errorf("the explorer's send: %s %q, link %q opened trace %q; want 200 with the plant and its trace", status, answer, link, opened)
	}

	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`location.assign(`+strconv.Quote(otherURL)+`)`, nil),
		chromedp.WaitVisible(`#elsewhere`),
	); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(other) == 0 || strings.Contains(strings.Join(other, "\n"), key) {
		t.Errorf("the server on another port received:\n%s\nwant requests with nothing of the key %s", strings.Join(other, "\n"), key)
	}
	if len(elsewhere) > 0 || !slices.ContainsFunc(loaded, func(u string) bool { return strings.Contains(u, "/static/page.js") }) {
		t.Errorf("the browser loaded %q; want start-api's own files only, its script among them, and the key sent only to them: %q", loaded, elsewhere)
	}
}

// checkScreenshot fails t unless shot is a PNG of the page: 1280 wide, and
// more than a blank (many distinct colours: the statuses, the bars, text).
func checkScreenshot(t *testing.T, shot []byte, keep string) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	b := img.Bounds()
	colours := map[[3]uint32]bool{}
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
		}
	}
	if b.Dx() != 1280 || len(colours) < 20 {
		t.Errorf("the screenshot is %v with %d colours; want 1280 wide and a drawn page", b, len(colours))
	}
	if keep != "" {
		if err := os.WriteFile(keep, shot, 0o644); err != nil {
			t.Error(err)
		}
	}
}
