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
	h := NewRecorder(io.Discard).Handler(http.NotFoundHandler())
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
		h.ServeHTTP(rec, httptest.NewRequest(c.method, c.path, nil))
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
