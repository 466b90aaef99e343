package trace

import (
	"bytes"
	"cmp"
	"crypto/subtle"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"net/http"
	"strings"
	"time"
)

// PagePrefix is where the page lives: /_samlocal/requests lists the
// recent requests, /_samlocal/requests/{id} shows one with its steps and
// log lines, /_samlocal/explorer sends requests. API Gateway never
// routes it: the REST API has no such resource.
const PagePrefix = "/_samlocal/"

//go:embed page.html static
var files embed.FS

var pageTemplate = template.Must(template.New("page.html").Funcs(template.FuncMap{
	"ms":    ms,
	"clock": func(t time.Time) string { return t.Format("15:04:05.000") },
	// pct is d's share of total, for the waterfall's bars.
	"pct": func(d, total time.Duration) string {
		if total <= 0 {
			return "0"
		}
		return fmt.Sprintf("%.1f", min(max(float64(d)/float64(total)*100, 0), 100))
	},
	"pretty": func(line string) string {
		var b bytes.Buffer
		if json.Indent(&b, []byte(line), "", "  ") != nil {
			return line
		}
		return b.String()
	},
	"class": func(status int) string {
		switch {
		case status >= 500:
			return "s5"
		case status >= 400:
			return "s4"
		}
		return "s2"
	},
}).ParseFS(files, "page.html"))

// page serves PagePrefix. Every answer, the files, the redirect and the
// mux's own 404 and 405 included, carries the page's headers (pageHeaders);
// a folder is a 404, never a listing.
func (r *Recorder) page() http.Handler {
	mux := http.NewServeMux()
	static := http.StripPrefix(PagePrefix, http.FileServerFS(files))
	mux.HandleFunc("GET "+PagePrefix+"static/", func(w http.ResponseWriter, req *http.Request) {
		if strings.HasSuffix(req.URL.Path, "/") {
			http.NotFound(w, req)
			return
		}
		static.ServeHTTP(w, req)
	})
	mux.HandleFunc("GET "+PagePrefix+"{$}", func(w http.ResponseWriter, req *http.Request) {
		http.Redirect(w, req, r.Link("", "requests"), http.StatusFound)
	})
	mux.HandleFunc("GET "+PagePrefix+"requests", func(w http.ResponseWriter, req *http.Request) {
		r.render(w, http.StatusOK, map[string]any{"View": "list", "Traces": r.Traces()})
	})
	mux.HandleFunc("GET "+PagePrefix+"requests/{id}", func(w http.ResponseWriter, req *http.Request) {
		t, ok := r.Get(req.PathValue("id"))
		if !ok {
			r.render(w, http.StatusNotFound, map[string]any{"View": "missing"})
			return
		}
		r.render(w, http.StatusOK, map[string]any{"View": "trace", "Trace": t})
	})
	mux.HandleFunc("GET "+PagePrefix+"explorer", func(w http.ResponseWriter, req *http.Request) {
		r.render(w, http.StatusOK, map[string]any{"View": "explorer", "Explorer": r.Explorer})
	})
	keyed := r.keyed(mux)
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		pageHeaders(w.Header())
		keyed.ServeHTTP(w, req)
	})
}

// Link is the address of a page (requests, explorer) under base that the
// tools print: it carries the run's key, which the pages want.
func (r *Recorder) Link(base, page string) string {
	return base + PagePrefix + page + "?key=" + r.key
}

// keyed serves next only to a request that carries the run's key in its
// query, the way Jupyter guards its server with a token: any local process,
// another user's included, can reach a loopback port, and the explorer
// holds a valid token. The key is never put in a cookie: cookies do not
// isolate ports (RFC 6265 section 8.5, "Cookies do not provide isolation by
// port"; https://www.rfc-editor.org/rfc/rfc6265#section-8.5), so the
// browser would send it, or anything derived from it, which works as well
// when replayed, to every server on 127.0.0.1. The pages carry the key in
// the address of their own links, files and fetches instead (page.html,
// static/page.js), and Referrer-Policy: no-referrer keeps those addresses
// out of every request's Referer. The key stays in the browser's history,
// which only the developer's own account reads.
func (r *Recorder) keyed(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if r.isKey(req.URL.Query().Get("key")) {
			next.ServeHTTP(w, req)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusForbidden)
		_, _ = io.WriteString(w, "This page opens from the link the tool printed (it carries this run's key).\n")
	})
}

func (r *Recorder) isKey(k string) bool {
	return subtle.ConstantTimeCompare([]byte(k), []byte(r.key)) == 1
}

// pageHeaders are the headers of every answer under PagePrefix.
// Everything comes from this server: no CDN, no inline script; inline style
// attributes only (the waterfall's bars).
func pageHeaders(h http.Header) {
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	// The pages' addresses carry the run's key: no request from them names
	// its page (https://www.w3.org/TR/referrer-policy/#referrer-policy-no-referrer).
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; style-src-attr 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'")
}

// render writes the page data shows, with the run's key for its links.
func (r *Recorder) render(w http.ResponseWriter, status int, data map[string]any) {
	data["Key"] = r.key
	data["Title"] = cmp.Or(r.Title, "samlocal")
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, data); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
