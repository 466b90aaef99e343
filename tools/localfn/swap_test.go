package localfn

import (
	"net/http"
	"net/http/httptest"
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
