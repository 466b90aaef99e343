package streams

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// line prints one batch's line on Out: the time, the table and the
// function, how many records, what became of them (delivered, partial,
// failed, discarded, not delivered), the invocation's duration and
// outcome (cold or warm, the function's error), and what comes next (the
// checkpoint, a retry, a discard):
//
//	14:56:42 stream ProductsTable → AuditFunction 2 records partial 14ms | warm; 1 of 2 failed, the first 1100000000017454423011 | retry 1 of 2 with 1 record from 1100000000017454423011 in 500ms
//	14:56:44 stream ProductsTable → AuditFunction 1 record partial 0.73ms | warm; 1 of 1 failed, the first 1100000000017454423011 | retries exhausted (MaximumRetryAttempts 2): 1 record discarded; checkpoint 1100000000017454423011
//
// The function's error message and the table's items reach it, so it is
// escaped whole (termsafe.Escape).
func (m *mapping) line(s *shard, n int, status string, took time.Duration, detail, next string) {
	var b strings.Builder
	fmt.Fprintf(&b, "%s stream %s → %s %s %s", m.p.now().Format("15:04:05"), m.ev.TableName, m.ev.Function, records(n), status)
	if took > 0 {
		fmt.Fprintf(&b, " %s", ms(took))
	}
	for _, part := range []string{detail, next} {
		if part != "" {
			fmt.Fprintf(&b, " | %s", part)
		}
	}
	fmt.Fprintln(m.p.Out, termsafe.Escape(b.String()))
}

// records is "1 record", "2 records".
func records(n int) string {
	if n == 1 {
		return "1 record"
	}
	return fmt.Sprintf("%d records", n)
}

// ms is d in milliseconds, as the request lines write it.
func ms(d time.Duration) string {
	m := float64(d) / float64(time.Millisecond)
	switch {
	case m < 1:
		return fmt.Sprintf("%.2fms", m)
	case m < 10:
		return fmt.Sprintf("%.1fms", m)
	}
	return fmt.Sprintf("%.0fms", m)
}

// delivery is where an invocation of the poller's own keeps its outcome.
type delivery struct{ detail string }

type deliveryKey struct{}

func withDelivery(ctx context.Context, d *delivery) context.Context {
	return context.WithValue(ctx, deliveryKey{}, d)
}

// Observer is the lambdaemu.Observer of functions that the poller invokes:
// it hands every invocation on to next (nil for none), and keeps the
// outcome of the poller's own ("cold, init 3ms", "warm, failed: ...") for
// its line.
func Observer(next lambdaemu.Observer) lambdaemu.Observer { return observer{next} }

type observer struct{ next lambdaemu.Observer }

func (o observer) Begin(ctx context.Context, function string) func(detail string) {
	end := func(string) {}
	if o.next != nil {
		end = o.next.Begin(ctx, function)
	}
	d, _ := ctx.Value(deliveryKey{}).(*delivery)
	return func(detail string) {
		if d != nil {
			d.detail = detail
		}
		end(detail)
	}
}

func (o observer) Invoked(ctx context.Context, requestID, traceHeader string) {
	if o.next != nil {
		o.next.Invoked(ctx, requestID, traceHeader)
	}
}
