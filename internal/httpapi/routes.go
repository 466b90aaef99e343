// Package httpapi is Plant Store's HTTP interface: POST /plants as a plain
// net/http handler, shared by the local server and the Lambda function. It
// decodes strictly, validates, calls the plant.Store, and answers every
// failure with the Error body of docs/design.md ("Errors").
package httpapi

import (
	"log/slog"
	"net/http"
	"path"
	"time"

	"github.com/plantstore/plantstore/internal/plant"
)

// Middleware wraps a handler.
type Middleware func(http.Handler) http.Handler

// NewHandler returns the API. authenticate guards POST /plants: RequireToken
// on the local server, the gateway authorizer's principal on Lambda. Unknown
// routes answer 404 and other methods on /plants 405 before any token check.
// Every request is logged once to logger.
func NewHandler(store plant.Store, logger *slog.Logger, authenticate Middleware) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /plants", authenticate(handleCreatePlant(store)))
	mux.Handle("/plants", handleMethodNotAllowed("POST"))
	mux.Handle("/", handleNotFound())
	return logRequests(logger, time.Now, cleanPathsOnly(mux))
}

// cleanPathsOnly answers 404 for paths that ServeMux would redirect (such as
// "//plants"), so that no answer is a redirect or lacks the Error body.
func cleanPathsOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; p == "" || p[0] != '/' || path.Clean(p) != p {
			writeError(w, r, errNotFound)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func handleNotFound() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, errNotFound)
	})
}

func handleMethodNotAllowed(allow string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, r, errMethodNotAllowed)
	})
}

// WriteUnreadable answers a request whose body could not even be read (an
// adapter that cannot decode what it was handed): 400 with error 40001.
func WriteUnreadable(w http.ResponseWriter, r *http.Request) {
	writeError(w, r, badJSON("the request body could not be read"))
}
