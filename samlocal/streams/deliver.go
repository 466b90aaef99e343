package streams

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// verdict is what the mapping makes of one invocation of a batch: the
// records at its start that are done, and whether the rest goes again.
type verdict struct {
	done  int  // records at the start of the batch now done
	retry bool // the batch's records from done on are to be sent again
	// functionError: the invocation failed (the function's error, a
	// crash, a timeout), which BisectBatchOnFunctionError splits on.
	functionError bool
	// partial: the function named the records that failed.
	partial bool
	why     string // for the line: what failed
}

// judge reads an invocation's answer by the rules of [ddb-bfr]
// ("Configuring partial batch response with DynamoDB and Lambda"):
//
//   - A function error fails the whole batch ("By default, if your function
//     returns an error, the event source mapping reprocesses the entire
//     batch", [esm]), whatever the answer holds.
//   - Without FunctionResponseTypes: [ReportBatchItemFailures], any other
//     answer is a success: "these responses will not be processed by
//     Lambda unless the ReportBatchItemFailures feature is explicitly
//     turned on".
//   - With it, an empty or null batchItemFailures, an empty answer ({}),
//     or none (null) is a complete success; an itemIdentifier that is empty,
//     null, or under a bad key name fails the whole batch; else "Lambda
//     uses the record with the lowest sequence number as the checkpoint.
//     Lambda then retries all records starting from that checkpoint."
//     The batch is in the stream's order, so the lowest sequence number is
//     the first failed record's. An answer that is no batch response, or
//     an itemIdentifier that is no record of the batch, fails the whole
//     batch too: samlocal's reading, where the page is silent.
func judge(batch []item, answer []byte, failed, reportFailures bool) verdict {
	if failed {
		return verdict{retry: true, functionError: true, why: "function error"}
	}
	whole := len(batch)
	if !reportFailures {
		return verdict{done: whole}
	}
	answer = bytes.TrimSpace(answer)
	if len(answer) == 0 || string(answer) == "null" {
		return verdict{done: whole}
	}
	var resp struct {
		BatchItemFailures []map[string]any `json:"batchItemFailures"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		return verdict{retry: true, why: "the answer is no batch response (" + err.Error() + ")"}
	}
	if len(resp.BatchItemFailures) == 0 {
		return verdict{done: whole}
	}
	first := whole
	for _, f := range resp.BatchItemFailures {
		id, _ := f["itemIdentifier"].(string)
		if id == "" {
			return verdict{retry: true, why: "a batch item failure without itemIdentifier"}
		}
		i := slices.IndexFunc(batch, func(it item) bool { return it.rec.Change.SequenceNumber == id })
		if i < 0 {
			return verdict{retry: true, why: fmt.Sprintf("itemIdentifier %q is no sequence number of the batch", id)}
		}
		first = min(first, i)
	}
	return verdict{done: first, retry: true, partial: true, why: fmt.Sprintf("%d of %d failed, the first %s", len(resp.BatchItemFailures), whole, batch[first].rec.Change.SequenceNumber)}
}

// deliver sends the first n records of s, applies the verdict, says so in
// one line, and returns the wait before the next step.
func (m *mapping) deliver(ctx context.Context, s *shard, n int) time.Duration {
	batch := s.buf[:n]
	d := &delivery{}
	start := m.p.now()
	answer, failed, err := m.fns.Invoke(withDelivery(ctx, d), m.ev.Function, payload(batch))
	took := m.p.now().Sub(start)
	if ctx.Err() != nil {
		return 0 // stopping: the batch stays, for the next generation
	}
	if err != nil {
		// It did not reach the function: no attempt is counted ("This
		// doesn't apply to service errors or throttles where the batch
		// didn't reach the function", [with-ddb], of MaximumRetryAttempts).
		wait := retryWait(s.attempts + 1)
		m.line(s, n, "not delivered", took, err.Error(), fmt.Sprintf("again in %s", wait))
		return wait
	}
	v := judge(batch, answer, failed, m.ev.ReportBatchItemFailures)
	s.since = m.p.now()
	if !v.retry {
		s.consume(n)
		s.attempts = 0
		m.line(s, n, "delivered", took, d.detail, "checkpoint "+s.checkpoint)
		return 0
	}
	status := "failed"
	if v.partial {
		status = "partial"
	}
	// BisectBatchOnFunctionError: "When the function returns an error,
	// split the batch into two before retrying", and "Splitting a batch
	// does not count towards the retry quota" [with-ddb]; "the batch is
	// bisected regardless of your ReportBatchItemFailures setting"
	// [ddb-bfr]. The halves go one after the other, before any fresh
	// batch; a batch of one record is retried as it is.
	if v.functionError && m.ev.BisectBatchOnFunctionError && n > 1 {
		half := n / 2
		s.queue = append([]int{half, n - half}, s.queue[1:]...)
		wait := retryWait(s.attempts + 1)
		m.line(s, n, status, took, d.detail, fmt.Sprintf("bisected: %s, then %d, in %s", records(half), n-half, wait))
		return wait
	}
	// A partial failure checkpoints before the first failed record and
	// sends the batch again from it; "When a partial batch success
	// response is received and both BisectBatchOnFunctionError and
	// ReportBatchItemFailures are turned on, the batch is bisected at the
	// returned sequence number and Lambda retries only the remaining
	// records" [ddb-bfr], which is the same.
	s.consume(v.done)
	rest := n - v.done
	s.attempts++
	detail := d.detail
	if !v.functionError {
		detail = strings.TrimPrefix(detail+"; "+v.why, "; ")
	}
	// MaximumRetryAttempts: "Discard records after the specified number
	// of retries. The default value is infinite (-1). When set to
	// infinite (-1), failed records are retried until the record
	// expires" (CreateEventSourceMapping); then Lambda "continues
	// processing batches from the stream" [ddb-err].
	if limit := m.ev.MaximumRetryAttempts; limit >= 0 && s.attempts > limit {
		s.consume(rest)
		s.attempts = 0
		m.line(s, n, status, took, detail, fmt.Sprintf("retries exhausted (MaximumRetryAttempts %d): %s discarded; checkpoint %s", limit, records(rest), s.checkpoint))
		return 0
	}
	wait := retryWait(s.attempts)
	of := "until the records expire"
	if limit := m.ev.MaximumRetryAttempts; limit >= 0 {
		of = fmt.Sprintf("of %d", limit)
	}
	m.line(s, n, status, took, detail, fmt.Sprintf("retry %d %s with %s from %s in %s", s.attempts, of, records(rest), s.buf[0].rec.Change.SequenceNumber, wait))
	return wait
}
