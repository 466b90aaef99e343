package localserve

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A swapped-out generation whose request never ends is closed after its
// drain bound; one whose requests end is closed when they do.
func TestASwapDrainsForABoundedTime(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	defer close(hang)
	started := make(chan struct{})
	closed := make(chan struct{})
	old := Generation{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { close(started); <-hang }),
		Close:   func() { close(closed) },
	}
	sw := NewSwapper(old)
	sw.Drain = 50 * time.Millisecond
	go sw.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/plants", nil))
	<-started
	sw.Swap(Generation{Handler: http.NotFoundHandler(), Close: func() {}})
	select {
	case <-closed:
	case <-time.After(30 * time.Second): // catches a hang only
		t.Fatal("the old generation was never closed: a hung request holds it")
	}
}

// Replace closes the old generation before it starts the next one (make
// run's processes share one bbolt file), and a request that arrives
// meanwhile waits and is answered by the next one, never by the old.
func TestReplaceStopsTheOldBeforeTheNextStarts(t *testing.T) {
	t.Parallel()
	closed := make(chan struct{})
	sw := NewSwapper(Generation{Handler: answer("old"), Close: func() { close(closed) }})
	release := make(chan struct{})
	replaced := make(chan error, 1)
	go func() {
		replaced <- sw.Replace(func() (Generation, error) {
			select {
			case <-closed:
			default:
				t.Error("the next generation started before the old one closed")
			}
			<-release // a request sent now must wait for the next generation
			return Generation{Handler: answer("next"), Close: func() {}}, nil
		})
	}()
	<-closed
	got := make(chan string, 1)
	go func() { got <- serve(sw) }()
	select {
	case body := <-got:
		t.Fatalf("a request during the replace was answered %q before the next generation started", body)
	case <-time.After(100 * time.Millisecond): // it waits; a wrong answer would come at once
	}
	close(release)
	if err := <-replaced; err != nil {
		t.Fatal(err)
	}
	if body := <-got; body != "next" {
		t.Errorf("the waiting request got %q, want the next generation's answer", body)
	}
}

// A start that fails and brings the old build back is served and its error
// reported; one that brings nothing answers 503 with the reason.
func TestReplaceReportsAFailedStart(t *testing.T) {
	t.Parallel()
	sw := NewSwapper(Generation{Handler: answer("old"), Close: func() {}})
	err := sw.Replace(func() (Generation, error) {
		return Generation{Handler: answer("old again"), Close: func() {}}, errors.New("exit status 1")
	})
	if err == nil || serve(sw) != "old again" {
		t.Errorf("Replace = %v, serving %q; want the error and the old build again", err, serve(sw))
	}
	if err := sw.Replace(func() (Generation, error) { return Generation{}, errors.New("no binary") }); err == nil {
		t.Error("Replace with nothing started reported no error")
	}
	rec := httptest.NewRecorder()
	sw.ServeHTTP(rec, httptest.NewRequest("POST", "/plants", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "no binary") {
		t.Errorf("with nothing started: %d %q, want 503 naming the reason", rec.Code, rec.Body.String())
	}
}

func answer(body string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })
}

func serve(h http.Handler) string {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("POST", "/plants", nil))
	return rec.Body.String()
}
