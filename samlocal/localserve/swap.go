package localserve

import (
	"fmt"
	"net/http"
	"sync"
	"time"
)

// Generation is what one build serves: its handler, and how to stop it
// (its function processes, or the make run process it passes requests to).
type Generation struct {
	Handler http.Handler
	Close   func()
}

type generation struct {
	Generation
	inflight sync.WaitGroup
}

// DrainTimeout bounds how long a swapped-out generation may finish its
// requests before it is closed anyway: the gateway's own bounds (30 s for a
// body, 29 s for an integration) and make run's (devserver.APITimeouts)
// fit inside it, so only a request that hangs (or one stopped at a
// breakpoint) is cut, with the function's error.
const DrainTimeout = 60 * time.Second

// Swapper serves the current generation of make start-api, make
// start-lambda or make run with WATCH=1, and swaps it for the next one in
// one of two ways:
//
//   - Swap, when both may run at once (start-api and start-lambda: the
//     functions of two builds share the local dynalite): new requests go to
//     the next one at once, while the old one finishes its requests;
//   - Replace, when they may not (make run: one process holds the bbolt
//     file's lock): new requests wait while the old one finishes its
//     requests and closes and the next one starts.
//
// Either way the old generation finishes its requests for Drain at most
// (DrainTimeout when 0), so a hung request never holds a reload.
type Swapper struct {
	Drain time.Duration

	mu       sync.Mutex
	changed  *sync.Cond // signalled when a Replace ends
	cur      *generation
	replaces bool // a Replace is under way: new requests wait
}

// NewSwapper serves g.
func NewSwapper(g Generation) *Swapper {
	s := &Swapper{cur: &generation{Generation: g}}
	s.changed = sync.NewCond(&s.mu)
	return s
}

func (s *Swapper) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	for s.replaces {
		s.changed.Wait()
	}
	g := s.cur
	g.inflight.Add(1)
	s.mu.Unlock()
	defer g.inflight.Done()
	g.Handler.ServeHTTP(w, r)
}

// Swap serves next from now on; the old generation closes once its
// requests are done, in the background.
func (s *Swapper) Swap(next Generation) {
	s.mu.Lock()
	old := s.cur
	s.cur = &generation{Generation: next}
	s.mu.Unlock()
	go s.retire(old)
}

// Replace holds new requests, lets the current generation finish its
// requests and closes it, then serves what start returns, and reports
// start's error. start may return a generation with its error (make run
// starts the old build again when the new one fails); a generation without
// a handler answers 503 with the error until the next Replace.
func (s *Swapper) Replace(start func() (Generation, error)) error {
	s.mu.Lock()
	for s.replaces {
		s.changed.Wait()
	}
	s.replaces = true
	old := s.cur
	s.mu.Unlock()
	s.retire(old)
	next, err := start()
	if next.Handler == nil {
		next = unavailable(err)
	}
	s.mu.Lock()
	s.cur = &generation{Generation: next}
	s.replaces = false
	s.changed.Broadcast()
	s.mu.Unlock()
	return err
}

// retire closes g once its requests are done, or after the drain bound.
func (s *Swapper) retire(g *generation) {
	drain := s.Drain
	if drain == 0 {
		drain = DrainTimeout
	}
	drained := make(chan struct{})
	go func() { g.inflight.Wait(); close(drained) }()
	timer := time.NewTimer(drain)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
	}
	g.Close()
}

// Close stops the current generation once its requests are done.
func (s *Swapper) Close() {
	s.mu.Lock()
	g := s.cur
	s.mu.Unlock()
	g.inflight.Wait()
	g.Close()
}

// unavailable answers 503 with why nothing serves.
func unavailable(err error) Generation {
	msg := fmt.Sprintf("nothing serves: %v; the next change tries again", err)
	return Generation{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, msg, http.StatusServiceUnavailable) }),
		Close:   func() {},
	}
}
