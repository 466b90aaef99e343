package trace

import (
	"io"
	"net/http"
	"net/http/httptest"
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
		for _, k := range []string{"Content-Security-Policy", "X-Content-Type-Options", "Cache-Control"} {
			if rec.Header().Get(k) == "" {
				t.Errorf("%s %s (%d) has no %s", c.method, c.path, rec.Code, k)
			}
		}
		if strings.Contains(rec.Body.String(), "page.css") && strings.HasSuffix(c.path, "/") {
			t.Errorf("%s %s lists a folder: %s", c.method, c.path, rec.Body)
		}
	}
}

// The pages answer only the run's key: the printed link sets a cookie
// (HttpOnly, SameSite=Strict, named for the port) that opens them after;
// without it, or with another key, every page and file is 403 and shows
// nothing of the run, the explorer's token least of all.
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
		if rec := get(path, &http.Cookie{Name: "plantstore_page_3000", Value: "guess"}); rec.Code != http.StatusForbidden {
			t.Errorf("%s with another key's cookie: %d", path, rec.Code)
		}
	}
	rec := get(r.Link("", "explorer"), nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "tok.en.value") {
		t.Fatalf("the printed link: %d", rec.Code)
	}
	cookies := rec.Result().Cookies()
	if len(cookies) != 1 || cookies[0].Name != "plantstore_page_3000" || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteStrictMode || cookies[0].Path != PagePrefix {
		t.Fatalf("the printed link's cookie: %+v", cookies)
	}
	if rec := get(PagePrefix+"requests", cookies[0]); rec.Code != http.StatusOK {
		t.Errorf("a page with the cookie: %d", rec.Code)
	}
}
