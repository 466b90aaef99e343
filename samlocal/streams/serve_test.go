package streams

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// until waits for cond, failing the test after a bound that is a failure's,
// not a measure.
func until(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A reload (Serve again, with the next generation's functions) goes on
// where the mapping was: what was delivered is not sent again, a batch in
// flight is cut short and sent again to the new functions (at least once),
// and what comes next goes to them. Stop ends every loop: nothing is
// delivered after it.
func TestServeSurvivesAReloadAndStops(t *testing.T) {
	t.Parallel()
	stream := newStream(newClock())
	p := &Poller{Streams: stream, Out: &bytes.Buffer{}}
	ctx := context.Background()
	first := &fakeFunction{}
	p.Serve(ctx, []samtemplate.StreamEvent{event()}, first)
	stream.put(0, types.OperationTypeInsert, "a", nil)
	until(t, "the first generation gets 101", func() bool { return len(first.got()) == 1 })

	// The next generation hangs on 102 until a reload cuts it short.
	blocking := &blockingFunction{started: make(chan struct{})}
	p.Serve(ctx, []samtemplate.StreamEvent{event()}, blocking)
	stream.put(0, types.OperationTypeInsert, "b", nil)
	<-blocking.started
	second := &fakeFunction{}
	p.Serve(ctx, []samtemplate.StreamEvent{event()}, second)
	stream.put(0, types.OperationTypeInsert, "c", nil)
	until(t, "the second generation gets 102 again, then 103", func() bool {
		got := second.got()
		return len(got) > 0 && slices.Contains(got[len(got)-1], "103")
	})
	if got := first.got(); len(got) != 1 {
		t.Errorf("the first generation got %v after the reload", got)
	}
	var all []string
	for _, b := range second.got() {
		all = append(all, b...)
	}
	if !slices.Equal(all, []string{"102", "103"}) {
		t.Errorf("the second generation got %v, want 102 (cut short before) and 103", all)
	}

	p.Stop()
	n := len(second.got())
	stream.put(0, types.OperationTypeInsert, "d", nil)
	time.Sleep(3 * pollInterval) // nothing should come: a bound, not a measure
	if got := second.got(); len(got) != n {
		t.Errorf("delivered after Stop: %v", got[n:])
	}
	p.Stop() // twice is fine
}

// blockingFunction holds every invocation until its context ends.
type blockingFunction struct{ started chan struct{} }

func (b *blockingFunction) Invoke(ctx context.Context, _ string, _ []byte) ([]byte, bool, error) {
	close(b.started)
	<-ctx.Done()
	return nil, false, ctx.Err()
}
