package streams

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/plantstore/plantstore/samlocal/eventfilter"
)

func batches(b ...[]string) [][]string { return b }

func seqs(s ...string) []string { return s }

// Records go out in the stream's order, BatchSize at most each, as
// events.DynamoDBEvent batches filled as Lambda fills them: the stream's
// ARN as eventSourceARN, eventVersion 1.1, the stream's region. After a
// batch the next step polls at once; with nothing to read it waits the
// poll interval, a quarter second ("4 times per second").
func TestBatchesGoOutInOrderBatchSizeAtMost(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.BatchSize = 2
	r := newRig(t, ev)
	r.start()
	for _, sku := range []string{"a", "b", "c", "d", "e"} {
		r.stream.put(0, types.OperationTypeInsert, sku, nil)
	}
	waits := r.steps(4)
	if want := batches(seqs("101", "102"), seqs("103", "104"), seqs("105")); !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
	if want := []time.Duration{0, 0, 0, pollInterval}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v", waits, want)
	}
	rec := r.fn.events[0].Records[0]
	if rec.EventSourceArn != testARN || rec.EventVersion != "1.1" || rec.AWSRegion != "eu-west-1" || rec.EventSource != "aws:dynamodb" || rec.EventName != "INSERT" ||
		rec.Change.Keys["sku"].String() != "a" || rec.Change.NewImage["sku"].String() != "a" || rec.Change.StreamViewType != "NEW_AND_OLD_IMAGES" ||
		!rec.Change.ApproximateCreationDateTime.Equal(newClock().t) {
		t.Errorf("the first record as the function got it: %+v", rec)
	}
	if got, want := r.lines()[0], "14:03:05 stream products → Audit 2 records delivered | checkpoint 102"; got != want {
		t.Errorf("line\n got %s\nwant %s", got, want)
	}
}

// A mapping that starts at LATEST leaves what the stream held before it;
// one at TRIM_HORIZON takes it all.
func TestStartingPosition(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pos  string
		want [][]string
	}{
		{"TRIM_HORIZON", batches(seqs("101", "102"))},
		{"LATEST", batches(seqs("102"))},
	} {
		ev := event()
		ev.StartingPosition = c.pos
		r := newRig(t, ev)
		r.stream.put(0, types.OperationTypeInsert, "before", nil)
		r.start()
		r.stream.put(0, types.OperationTypeInsert, "after", nil)
		r.steps(2)
		if !slices.EqualFunc(r.fn.got(), c.want, slices.Equal) {
			t.Errorf("%s: batches %v, want %v", c.pos, r.fn.got(), c.want)
		}
	}
}

// With MaximumBatchingWindowInSeconds, a batch short of BatchSize waits
// for more records until the window ends; a full one goes at once.
func TestBatchingWindowWaitsForAFullBatch(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.BatchSize, ev.BatchingWindow = 3, 2*time.Second
	r := newRig(t, ev)
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	if w := r.step(); w != pollInterval || len(r.fn.got()) != 0 {
		t.Fatalf("one record in the window: wait %v, batches %v; want none yet", w, r.fn.got())
	}
	r.clock.advance(time.Second)
	r.stream.put(0, types.OperationTypeInsert, "b", nil)
	r.step()
	r.clock.advance(time.Second) // the window has ended
	r.step()
	r.stream.put(0, types.OperationTypeInsert, "c", nil)
	r.stream.put(0, types.OperationTypeInsert, "d", nil)
	r.stream.put(0, types.OperationTypeInsert, "e", nil)
	r.step() // a full batch goes at once
	if want := batches(seqs("101", "102"), seqs("103", "104", "105")); !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
}

// A function error fails the whole batch, which goes again as it was,
// records written since left for later, until it succeeds; the waits
// between grow. Lambda's default retries until the records expire.
func TestAFunctionErrorRetriesTheWholeBatch(t *testing.T) {
	t.Parallel()
	r := newRig(t, event())
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	r.stream.put(0, types.OperationTypeInsert, "b", nil)
	fails := 3
	r.fn.answer = func(s []string) ([]byte, bool, error) {
		if fails > 0 {
			fails--
			return []byte(`{"errorType":"errorString","errorMessage":"boom"}`), true, nil
		}
		return []byte("null"), false, nil
	}
	r.steps(1)
	r.stream.put(0, types.OperationTypeInsert, "c", nil) // not in the retried batch
	waits := r.steps(4)
	want := batches(seqs("101", "102"), seqs("101", "102"), seqs("101", "102"), seqs("101", "102"), seqs("103"))
	if !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 0, 0}; !slices.Equal(waits, want) {
		t.Errorf("waits %v, want %v (the first retry waits %v)", waits, want, firstRetry)
	}
	if l := r.lines()[0]; !strings.HasSuffix(l, "2 records failed | retry 1 until the records expire with 2 records from 101 in 500ms") {
		t.Errorf("the first failure's line: %s", l)
	}
}

// MaximumRetryAttempts: the batch goes once and that many times again,
// then it is discarded and the mapping goes on with the next records.
func TestMaximumRetryAttemptsDiscardsTheBatch(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.MaximumRetryAttempts = 2
	ev.BatchSize = 2
	r := newRig(t, ev)
	r.start()
	for _, sku := range []string{"a", "b", "c"} {
		r.stream.put(0, types.OperationTypeInsert, sku, nil)
	}
	r.fn.answer = failing("101")
	r.steps(4)
	want := batches(seqs("101", "102"), seqs("101", "102"), seqs("101", "102"), seqs("103"))
	if !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
	lines := r.lines()
	if !strings.Contains(lines[1], "retry 2 of 2") || !strings.HasSuffix(lines[2], "| retries exhausted (MaximumRetryAttempts 2): 2 records discarded; checkpoint 102") {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
	// MaximumRetryAttempts 0: one attempt, no retry.
	ev.MaximumRetryAttempts = 0
	r = newRig(t, ev)
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	r.fn.answer = failing("101")
	r.steps(2)
	if got := r.fn.got(); len(got) != 1 {
		t.Errorf("MaximumRetryAttempts 0: %d invocations, want 1", len(got))
	}
}

// With ReportBatchItemFailures, the records before the lowest failed
// sequence number are done, and the batch goes again from it; without it,
// the same answer is a success.
func TestReportBatchItemFailuresCheckpointsAtTheLowest(t *testing.T) {
	t.Parallel()
	for _, report := range []bool{true, false} {
		ev := event()
		ev.ReportBatchItemFailures = report
		r := newRig(t, ev)
		r.start()
		for _, sku := range []string{"a", "b", "c", "d"} {
			r.stream.put(0, types.OperationTypeInsert, sku, nil)
		}
		first := true
		r.fn.answer = func(s []string) ([]byte, bool, error) {
			if first {
				first = false
				return []byte(`{"batchItemFailures":[{"itemIdentifier":"104"},{"itemIdentifier":"102"}]}`), false, nil
			}
			return []byte(`{"batchItemFailures":[]}`), false, nil
		}
		r.steps(3)
		want := batches(seqs("101", "102", "103", "104"))
		if report {
			want = append(want, seqs("102", "103", "104"))
		}
		if !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
			t.Errorf("ReportBatchItemFailures %v: batches %v, want %v", report, r.fn.got(), want)
		}
		if l := r.lines()[0]; report && !strings.HasSuffix(l, "4 records partial | 2 of 4 failed, the first 102 | retry 1 until the records expire with 3 records from 102 in 500ms") {
			t.Errorf("line: %s", l)
		}
	}
}

// Each answer, read by the partial batch response's rules.
func TestBatchResponsesAsLambdaReadsThem(t *testing.T) {
	t.Parallel()
	batch := []item{{}, {}, {}}
	for i, seq := range []string{"7", "8", "9"} {
		batch[i].rec.Change.SequenceNumber = seq
	}
	for _, c := range []struct {
		name, answer string
		failed       bool
		report       bool
		done         int
		retry        bool
	}{
		{"success, not reported", `{"batchItemFailures":[{"itemIdentifier":"8"}]}`, false, false, 3, false},
		{"function error", `{"batchItemFailures":[]}`, true, true, 0, true},
		{"empty list", `{"batchItemFailures":[]}`, false, true, 3, false},
		{"null list", `{"batchItemFailures":null}`, false, true, 3, false},
		{"empty answer", `{}`, false, true, 3, false},
		{"null answer", `null`, false, true, 3, false},
		{"no answer", ``, false, true, 3, false},
		{"the lowest of two", `{"batchItemFailures":[{"itemIdentifier":"9"},{"itemIdentifier":"8"}]}`, false, true, 1, true},
		{"the first record", `{"batchItemFailures":[{"itemIdentifier":"7"}]}`, false, true, 0, true},
		{"empty itemIdentifier", `{"batchItemFailures":[{"itemIdentifier":""}]}`, false, true, 0, true},
		{"null itemIdentifier", `{"batchItemFailures":[{"itemIdentifier":null}]}`, false, true, 0, true},
		{"a bad key name", `{"batchItemFailures":[{"itemIdentifer":"8"}]}`, false, true, 0, true},
		{"no record of the batch", `{"batchItemFailures":[{"itemIdentifier":"6"}]}`, false, true, 0, true},
		{"no batch response", `"done"`, false, true, 0, true},
	} {
		v := judge(batch, []byte(c.answer), c.failed, c.report)
		if v.done != c.done || v.retry != c.retry {
			t.Errorf("%s: done %d retry %v, want %d %v (%s)", c.name, v.done, v.retry, c.done, c.retry, v.why)
		}
	}
}

// BisectBatchOnFunctionError splits a failed batch in two before it is
// retried, without counting an attempt; a failed record alone is retried
// and counted, and discarded past MaximumRetryAttempts; the rest goes on.
func TestBisectSplitsAFailedBatch(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.BisectBatchOnFunctionError, ev.MaximumRetryAttempts = true, 1
	r := newRig(t, ev)
	r.start()
	for _, sku := range []string{"a", "b", "c", "d"} {
		r.stream.put(0, types.OperationTypeInsert, sku, nil)
	}
	r.fn.answer = failing("103")
	r.steps(8)
	want := batches(
		seqs("101", "102", "103", "104"), // fails: halves
		seqs("101", "102"),               // ok
		seqs("103", "104"),               // fails: halves
		seqs("103"),                      // fails alone: attempt 1
		seqs("103"),                      // retry 1 of 1 fails: discarded
		seqs("104"),
	)
	if !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches\n got %v\nwant %v", r.fn.got(), want)
	}
	if l := r.lines()[0]; !strings.Contains(l, "4 records failed") || !strings.HasSuffix(l, "| bisected: 2 records, then 2, in 500ms") {
		t.Errorf("line: %s", l)
	}
}

// A record that no filter matches is dropped as it is read: never
// delivered, never retried, and the checkpoint passes it.
func TestFilteredRecordsAreNeitherDeliveredNorRetried(t *testing.T) {
	t.Parallel()
	ev := event()
	p, err := eventfilter.Parse(`{"eventName":["INSERT"]}`)
	if err != nil {
		t.Fatal(err)
	}
	ev.Filters = eventfilter.Criteria{p}
	r := newRig(t, ev)
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	r.stream.put(0, types.OperationTypeModify, "a", nil)
	r.stream.put(0, types.OperationTypeInsert, "b", nil)
	fails := 1
	r.fn.answer = func([]string) ([]byte, bool, error) {
		if fails > 0 {
			fails--
			return []byte(`{}`), true, nil
		}
		return nil, false, nil
	}
	r.steps(3)
	r.stream.put(0, types.OperationTypeModify, "b", nil)
	r.steps(2)
	if want := batches(seqs("101", "103"), seqs("101", "103")); !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
}

// MaximumRecordAgeInSeconds: a failing batch whose records grow older
// than it is discarded before the next attempt, without an invocation.
func TestMaximumRecordAgeDiscardsOldRecords(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.MaximumRecordAge = time.Minute
	r := newRig(t, ev)
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	r.fn.answer = failing("101")
	r.step()
	r.clock.advance(61 * time.Second)
	r.stream.put(0, types.OperationTypeInsert, "b", nil)
	r.steps(2)
	if want := batches(seqs("101"), seqs("102")); !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
	if l := r.lines()[1]; l != "14:04:06 stream products → Audit 1 record discarded | older than MaximumRecordAgeInSeconds 60; checkpoint 101" {
		t.Errorf("line: %s", l)
	}
}

// A batch that does not reach the function is sent again without
// counting an attempt.
func TestABatchThatDidNotReachTheFunctionIsNoAttempt(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.MaximumRetryAttempts = 0
	r := newRig(t, ev)
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	down := 2
	r.fn.answer = func([]string) ([]byte, bool, error) {
		if down > 0 {
			down--
			return nil, false, fmt.Errorf("no such function")
		}
		return nil, false, nil
	}
	r.steps(3)
	if got := r.fn.got(); len(got) != 3 || !strings.Contains(r.lines()[2], "delivered") {
		t.Errorf("batches %v, lines %q; want the third to be delivered", got, r.lines())
	}
}

// A batch is cut to fit the 6 MB payload of a synchronous invocation.
func TestABatchFitsThePayloadQuota(t *testing.T) {
	t.Parallel()
	r := newRig(t, event())
	r.start()
	big := map[string]types.AttributeValue{"blob": &types.AttributeValueMemberS{Value: strings.Repeat("x", 1<<20)}}
	for i := range 8 {
		r.stream.put(0, types.OperationTypeInsert, fmt.Sprint(i), big)
	}
	r.steps(2)
	got := r.fn.got()
	if len(got) != 2 || len(got[0]) != 4 || len(got[1]) != 4 {
		t.Errorf("batch sizes %v; want two batches of 4 (8 MB in all)", got)
	}
}

// A shard split: the child is read once its parent is done, and from its
// start whatever the StartingPosition.
func TestAChildShardIsReadAfterItsParent(t *testing.T) {
	t.Parallel()
	ev := event()
	ev.StartingPosition = "LATEST"
	r := newRig(t, ev)
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	r.stream.shards = append(r.stream.shards, &fakeShard{id: "shard-2", parent: "shard-1"})
	r.stream.put(1, types.OperationTypeInsert, "b", nil)
	r.stream.shards[0].closed = true
	r.steps(4)
	if want := batches(seqs("101"), seqs("102")); !slices.EqualFunc(r.fn.got(), want, slices.Equal) {
		t.Errorf("batches %v, want %v", r.fn.got(), want)
	}
}

// What a function's error carries reaches the terminal escaped.
func TestTheLineIsEscaped(t *testing.T) {
	t.Parallel()
	r := newRig(t, event())
	r.start()
	r.stream.put(0, types.OperationTypeInsert, "a", nil)
	r.fn.answer = func([]string) ([]byte, bool, error) { return nil, false, fmt.Errorf("bad \x1b]52;c;aGk=\x07") }
	r.step()
	if l := r.out.String(); strings.ContainsAny(l, "\x1b\x07") || !strings.Contains(l, `bad \x1b]52;c;aGk=\a`) {
		t.Errorf("line %q", l)
	}
}
