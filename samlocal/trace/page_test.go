package trace

import (
	"html"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every answer under the page's prefix carries its Content-Security-Policy,
// nosniff and no-store: the pages, the static files, the redirects, the
// mux's 404 and 405; a folder is a 404, never a listing.
func TestEveryPageAnswerCarriesTheCSP(t *testing.T) {
	t.Parallel()
	r := NewRecorder(io.Discard)
	h := r.Handler(http.NotFoundHandler())
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", PagePrefix, http.StatusFound},
		{"GET", PagePrefix + "requests", http.StatusOK},
		{"GET", PagePrefix + "requests/none", http.StatusNotFound},
		{"GET", PagePrefix + "explorer", http.StatusOK},
		{"GET", PagePrefix + "static/page.css", http.StatusOK},
		{"GET", PagePrefix + "static/", http.StatusNotFound},
		{"GET", PagePrefix + "static", http.StatusTemporaryRedirect}, // net/http's ServeMux, to static/
		{"GET", PagePrefix + "nothing", http.StatusNotFound},
		{"POST", PagePrefix + "requests", http.StatusMethodNotAllowed},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path+"?key="+r.key, nil))
		if rec.Code != c.status {
			t.Errorf("%s %s: %d, want %d", c.method, c.path, rec.Code, c.status)
		}
		for _, k := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Cache-Control", "Referrer-Policy"} {
			if rec.Header().Get(k) == "" {
				t.Errorf("%s %s (%d) has no %s", c.method, c.path, rec.Code, k)
			}
		}
		if strings.Contains(rec.Body.String(), "page.css") && strings.HasSuffix(c.path, "/") {
			t.Errorf("%s %s lists a folder: %s", c.method, c.path, rec.Body)
		}
	}
}

// The pages answer only the run's key, in the query: without it, with
// another key, or with the key in a cookie (as the printed link once set),
// every page and file is 403 and shows nothing of the run, the explorer's
// token least of all.
func TestThePagesWantTheRunsKey(t *testing.T) {
	t.Parallel()
	r := NewRecorder(io.Discard)
	r.Explorer = Explorer{Token: "tok.en.value"}
	h := r.Handler(http.NotFoundHandler())
	get := func(path string, cookie *http.Cookie) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", "http://127.0.0.1:3000"+path, nil)
		if cookie != nil {
			req.AddCookie(cookie)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	for _, path := range []string{PagePrefix + "explorer", PagePrefix + "requests", PagePrefix + "static/page.js", PagePrefix + "explorer?key=guess"} {
		if rec := get(path, nil); rec.Code != http.StatusForbidden || strings.Contains(rec.Body.String(), "tok.en.value") {
			t.Errorf("%s without the key: %d %s", path, rec.Code, rec.Body)
		}
		if rec := get(path, &http.Cookie{Name: "plantstore_page_3000", Value: r.key}); rec.Code != http.StatusForbidden {
			t.Errorf("%s with the key in a cookie: %d", path, rec.Code)
		}
	}
	if rec := get(r.Link("", "explorer"), nil); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "tok.en.value") {
		t.Fatalf("the printed link: %d", rec.Code)
	}
}

// The key never reaches a server on another port. Cookies do not isolate
// ports (RFC 6265 section 8.5, "Cookies do not provide isolation by port"):
// a cookie set by 127.0.0.1:3000 goes to every server on 127.0.0.1, so no
// answer sets one, and whatever a cookie could carry (the key, an HMAC of
// it) the receiver could replay. The key travels in the query of the
// pages' own links instead: every page, file and redirect reached from the
// printed links, followed as a browser would, opens with the key in its
// address alone (the requests carry no cookie), sets no cookie, links under
// the prefix only with the key, and says Referrer-Policy: no-referrer, so
// neither a link to another origin nor the explorer's requests to the API
// carry the page's address.
func TestThePageKeyStaysOnItsPort(t *testing.T) {
	t.Parallel()
	r := NewRecorder(io.Discard)
	r.Explorer = Explorer{Token: "tok.en.value", Operations: []Operation{{Method: "POST", Path: "/plants"}}}
	h := r.Handler(http.NotFoundHandler())
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/plants", nil))
	id := rec.Header().Get(TraceHeader)

	ref := regexp.MustCompile(`(?:href|src|data-live)="(` + PagePrefix + `[^"]*)"`)
	todo := []string{r.Link("", "requests"), r.Link("", "explorer"), r.Link("", ""), r.Link("", "requests/none")}
	seen, bad := map[string]bool{}, map[string]bool{}
	for len(todo) > 0 {
		u := todo[0]
		todo = todo[1:]
		if seen[u] {
			continue
		}
		seen[u] = true
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "http://127.0.0.1:3000"+u, nil))
		if rec.Code >= 400 && !strings.Contains(u, "/none?") {
			t.Errorf("%s: %d, want it open with the key alone", u, rec.Code)
		}
		if c := rec.Header().Values("Set-Cookie"); len(c) > 0 {
			t.Errorf("%s sets a cookie, which every port of the host receives: %q", u, c)
		}
		if got := rec.Header().Get("Referrer-Policy"); got != "no-referrer" {
			t.Errorf("%s: Referrer-Policy %q, want no-referrer", u, got)
		}
		var links []string
		if l := rec.Header().Get("Location"); l != "" {
			links = append(links, l)
		}
		for _, m := range ref.FindAllStringSubmatch(rec.Body.String(), -1) {
			links = append(links, html.UnescapeString(m[1]))
		}
		for _, l := range links {
			if link, err := url.Parse(l); err != nil || link.Query().Get("key") != r.key {
				if !bad[l] {
					t.Errorf("%s links to %s, without the key", u, l)
				}
				bad[l] = true
				continue
			}
			todo = append(todo, l)
		}
	}
	for _, want := range []string{PagePrefix + "requests/" + id, PagePrefix + "static/page.js", PagePrefix + "static/page.css"} {
		if !seen[want+"?key="+r.key] {
			t.Errorf("the pages never link to %s with the key; reached %v", want, slices.Sorted(maps.Keys(seen)))
		}
	}
}
