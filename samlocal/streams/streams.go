// Package streams is Lambda's event source mapping for DynamoDB streams, on
// this machine: it polls the streams of the template's tables on the local
// emulator (moto_server, dynamoemu.Local) and delivers their records to the
// functions of the template's DynamoDB event sources
// (samtemplate.StreamEvent) through lambdaemu.Functions, as
// events.DynamoDBEvent batches, filtered, checkpointed and retried by the
// mapping's rules. SAM CLI serves no event source; this goes beyond it.
//
// Each rule sits beside the code that keeps it, with the page it comes
// from:
//
//	[with-ddb]   https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html
//	[ddb-params] https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html
//	[ddb-bfr]    https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-batchfailurereporting.html
//	[ddb-err]    https://docs.aws.amazon.com/lambda/latest/dg/services-dynamodb-errors.html
//	[esm]        https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventsourcemapping.html
//	[filt]       https://docs.aws.amazon.com/lambda/latest/dg/invocation-eventfiltering.html
//	[gsi]        https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_GetShardIterator.html
//
// Each batch it delivers is one line on Out (line.go).
package streams

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// Reader is what the poller asks of DynamoDB Streams: a
// *dynamodbstreams.Client (dynamoemu.Server.Streams).
type Reader interface {
	ListStreams(context.Context, *dynamodbstreams.ListStreamsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error)
	DescribeStream(context.Context, *dynamodbstreams.DescribeStreamInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error)
	GetShardIterator(context.Context, *dynamodbstreams.GetShardIteratorInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error)
	GetRecords(context.Context, *dynamodbstreams.GetRecordsInput, ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error)
}

// Invoker runs a function on a payload, as lambdaemu.Functions does:
// failed says the answer is an error document (a function error).
type Invoker interface {
	Invoke(ctx context.Context, function string, payload []byte) (answer []byte, failed bool, err error)
}

const (
	// pollInterval: "Lambda polls shards in your DynamoDB stream for
	// records at a base rate of 4 times per second" [with-ddb].
	pollInterval = 250 * time.Millisecond
	// maxPayload is the synchronous invocation's payload quota: a batch is
	// sent whole "as long as the total size of the events doesn't exceed
	// the payload limit for synchronous invocation (6 MB)" [with-ddb].
	maxPayload = 6 << 20
	// getRecordsLimit is GetRecords' largest Limit ("The maximum number
	// of records to return from the shard. The upper limit is 1000",
	// the DynamoDB Streams API reference, GetRecords): a batch of more
	// takes several reads.
	getRecordsLimit = 1000
	// firstRetry and lastRetry bound the wait before a failed batch is
	// sent again: samlocal's own, doubled from one to the next. Lambda
	// documents no such delay; without one, a poison record that is
	// retried until it expires (the default) would fill the terminal.
	firstRetry = 500 * time.Millisecond
	lastRetry  = 30 * time.Second
)

// Poller delivers the records of the event sources' streams. Serve starts
// it, again on each reload; Stop ends it.
type Poller struct {
	Streams Reader
	Out     io.Writer // one line per batch (line.go)
	// Now is the clock (time.Now when nil), for the batching window,
	// MaximumRecordAgeInSeconds and the lines; Sleep waits (a timer when
	// nil) and returns early with ctx's error.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error

	mu       sync.Mutex
	mappings map[string]*mapping // by StreamEvent.ID
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// Serve delivers the records of events' streams to fns until ctx ends or
// the next Serve or Stop. A mapping that was served before (a reload)
// goes on where it was: records read and not yet done are delivered to
// fns, the new generation's functions, and a batch cut short by the
// reload is sent again, at least once as on AWS ("Lambda event source
// mappings process events at least once", [esm]). Serve takes each new
// mapping's first shard iterators before it returns, so a LATEST mapping
// starts at the moment the servers do.
func (p *Poller) Serve(ctx context.Context, evs []samtemplate.StreamEvent, fns Invoker) {
	p.Stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := map[string]*mapping{}
	for _, ev := range evs {
		m := p.mappings[ev.ID()]
		if m == nil || m.ev.TableName != ev.TableName {
			m = &mapping{p: p}
		}
		m.ev, m.fns = ev, fns
		kept[ev.ID()] = m
	}
	p.mappings = kept
	ctx, p.cancel = context.WithCancel(ctx)
	for _, id := range sortedKeys(kept) {
		m := kept[id]
		if m.arn == "" {
			m.start(ctx)
		}
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			m.run(ctx)
		}()
	}
}

// Stop stops the polling and waits for it: a batch in flight is cut short,
// and not counted as an attempt.
func (p *Poller) Stop() {
	p.mu.Lock()
	cancel := p.cancel
	p.cancel = nil
	p.mu.Unlock()
	if cancel != nil {
		cancel()
		p.wg.Wait()
	}
}

func (p *Poller) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Poller) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// mapping is one event source mapping's state: its stream and shards.
type mapping struct {
	p   *Poller
	ev  samtemplate.StreamEvent
	fns Invoker

	arn     string // the stream's, "" until it is found
	shards  []*shard
	started bool // StartingPosition is spent: shards found later start at TRIM_HORIZON
	rescan  bool // describe the stream again (a shard ended, a read failed)
	errors  int  // failed reads in a row, for the wait before the next
}

// shard is one shard's state. buf holds the records read and not yet done,
// in the stream's order; queue the sizes of the batches that must go out
// as they are before any fresh one (a batch being retried, the halves of a
// bisected one), which cover the start of buf.
type shard struct {
	id, parent string
	position   types.ShardIteratorType // TRIM_HORIZON or LATEST for the first iterator
	iter       *string                 // the next GetRecords iterator; nil: take one
	read       string                  // the last sequence number read
	ended      bool                    // the shard is closed: its last records are read
	closed     bool                    // ... and done

	buf        []item
	queue      []int
	attempts   int       // failed invocations of the batch at the start of queue
	notBefore  time.Time // the batch at the start of queue waits until then
	since      time.Time // when the batching window began
	checkpoint string    // the last sequence number done
}

// item is one record, as the function gets it and as JSON.
type item struct {
	rec  events.DynamoDBEventRecord
	json []byte
}

func (m *mapping) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := m.p.sleep(ctx, m.step(ctx)); err != nil {
			return
		}
	}
}

// start finds the stream and takes the first iterators; a failure is
// said, and the loop tries again.
func (m *mapping) start(ctx context.Context) {
	if err := m.discover(ctx); err != nil {
		m.readFailed(err)
		return
	}
	for _, s := range m.workable() {
		if err := m.iterator(ctx, s); err != nil {
			m.readFailed(err)
			return
		}
	}
}

// step reads and delivers what there is, one batch per shard at most, and
// returns how long to wait before the next step: none after a batch went
// out ("If processing succeeds, Lambda resumes polling until it receives
// more records", [with-ddb]), the poll interval when there was nothing,
// longer after a failure.
func (m *mapping) step(ctx context.Context) time.Duration {
	if err := m.discover(ctx); err != nil {
		return m.readFailed(err)
	}
	wait := time.Duration(-1) // the shortest of the shards' waits
	soonest := func(d time.Duration) {
		if wait < 0 || d < wait {
			wait = d
		}
	}
	for _, s := range m.workable() {
		if d := s.notBefore.Sub(m.p.now()); d > 0 { // a retry's wait
			soonest(d)
			continue
		}
		if err := m.fill(ctx, s); err != nil {
			return m.readFailed(err)
		}
		m.errors = 0
		m.expire(s)
		n := m.next(s)
		if n == 0 {
			if s.ended && len(s.buf) == 0 {
				s.closed, m.rescan = true, true
			}
			soonest(pollInterval)
			continue
		}
		d := m.deliver(ctx, s, n)
		s.notBefore = m.p.now().Add(d)
		soonest(d)
	}
	if wait < 0 {
		return pollInterval
	}
	return wait
}

// discover finds the table's stream and its shards, at first and when a
// shard has ended or a read failed. A stream with a new ARN (the table was
// made again) starts over. moto's streams have one shard that never ends;
// on AWS shards end and split, and a child is read once its parent is done
// ("processes items in each shard in order", [esm]).
func (m *mapping) discover(ctx context.Context) error {
	if m.arn != "" && !m.rescan {
		return nil
	}
	var arn, label string
	in := &dynamodbstreams.ListStreamsInput{TableName: aws.String(m.ev.TableName)}
	for {
		out, err := m.p.Streams.ListStreams(ctx, in)
		if err != nil {
			return fmt.Errorf("list the streams of %s: %w", m.ev.TableName, err)
		}
		for _, s := range out.Streams {
			// The newest: a label is the stream's creation time.
			if l := aws.ToString(s.StreamLabel); arn == "" || l > label {
				arn, label = aws.ToString(s.StreamArn), l
			}
		}
		if out.LastEvaluatedStreamArn == nil {
			break
		}
		in.ExclusiveStartStreamArn = out.LastEvaluatedStreamArn
	}
	if arn == "" {
		return fmt.Errorf("table %s has no stream", m.ev.TableName)
	}
	if arn != m.arn {
		m.arn, m.shards, m.started = arn, nil, false
	}
	din := &dynamodbstreams.DescribeStreamInput{StreamArn: aws.String(arn)}
	for {
		out, err := m.p.Streams.DescribeStream(ctx, din)
		if err != nil {
			return fmt.Errorf("describe the stream of %s: %w", m.ev.TableName, err)
		}
		desc := out.StreamDescription
		if desc == nil {
			break
		}
		for _, sh := range desc.Shards {
			id := aws.ToString(sh.ShardId)
			if m.shard(id) != nil {
				continue
			}
			// StartingPosition applies to the shards there are when
			// the mapping starts; a shard that comes later is read
			// from its start.
			pos := types.ShardIteratorTypeTrimHorizon
			if !m.started && m.ev.StartingPosition == "LATEST" {
				pos = types.ShardIteratorTypeLatest
			}
			m.shards = append(m.shards, &shard{id: id, parent: aws.ToString(sh.ParentShardId), position: pos})
		}
		if desc.LastEvaluatedShardId == nil {
			break
		}
		din.ExclusiveStartShardId = desc.LastEvaluatedShardId
	}
	m.started, m.rescan = true, false
	return nil
}

func (m *mapping) shard(id string) *shard {
	for _, s := range m.shards {
		if s.id == id {
			return s
		}
	}
	return nil
}

// workable lists the shards to read: open ones whose parent is done or
// gone.
func (m *mapping) workable() []*shard {
	var out []*shard
	for _, s := range m.shards {
		if s.closed {
			continue
		}
		if p := m.shard(s.parent); p != nil && !p.closed {
			continue
		}
		out = append(out, s)
	}
	return out
}

// iterator takes s's iterator: after the last record read, or at the
// shard's starting position.
func (m *mapping) iterator(ctx context.Context, s *shard) error {
	if s.iter != nil {
		return nil
	}
	in := &dynamodbstreams.GetShardIteratorInput{StreamArn: aws.String(m.arn), ShardId: aws.String(s.id), ShardIteratorType: s.position}
	if s.read != "" {
		in.ShardIteratorType, in.SequenceNumber = types.ShardIteratorTypeAfterSequenceNumber, aws.String(s.read)
	}
	out, err := m.p.Streams.GetShardIterator(ctx, in)
	if err != nil {
		return fmt.Errorf("take an iterator of %s: %w", m.ev.TableName, err)
	}
	s.iter = out.ShardIterator
	return nil
}

// fill reads s until buf holds a batch or the shard has no more. A record
// that no filter matches is dropped as it is read, never delivered nor
// retried: "If the record doesn't satisfy your filter criteria", "the
// streams iterator advances past this record" [filt].
func (m *mapping) fill(ctx context.Context, s *shard) error {
	for !s.ended && len(s.buf) < m.ev.BatchSize {
		if err := m.iterator(ctx, s); err != nil {
			return err
		}
		out, err := m.p.Streams.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: s.iter, Limit: aws.Int32(int32(min(m.ev.BatchSize-len(s.buf), getRecordsLimit)))})
		if err != nil {
			// The iterator may have expired (15 minutes on AWS, [gsi]),
			// or the table been made again: take a new one after the
			// last record read, from a stream described again.
			s.iter, m.rescan = nil, true
			return fmt.Errorf("read the stream of %s: %w", m.ev.TableName, err)
		}
		// A closed shard's last read has no next iterator ([gsi],
		// GetRecords: "If set to null, the shard has been closed").
		s.iter = out.NextShardIterator
		s.ended = s.iter == nil
		for _, r := range out.Records {
			rec := eventRecord(r, m.arn)
			s.read = rec.Change.SequenceNumber
			raw, err := json.Marshal(rec)
			if err != nil {
				return err
			}
			if ok, err := m.ev.Filters.Match(raw); err != nil || !ok {
				continue
			}
			if len(s.buf) == 0 {
				s.since = m.p.now()
			}
			s.buf = append(s.buf, item{rec, raw})
		}
		if len(out.Records) == 0 {
			break
		}
	}
	return nil
}

// expire discards the records at the start of buf older than
// MaximumRecordAgeInSeconds: Lambda retries a failed batch "until the
// records expire or exceed the maximum age" [ddb-err], and "Discard records
// older than the specified age" [ddb-params].
func (m *mapping) expire(s *shard) {
	if m.ev.MaximumRecordAge <= 0 {
		return
	}
	now := m.p.now()
	n := 0
	for n < len(s.buf) && now.Sub(s.buf[n].rec.Change.ApproximateCreationDateTime.Time) > m.ev.MaximumRecordAge {
		n++
	}
	if n == 0 {
		return
	}
	entries := len(s.queue)
	s.consume(n)
	if len(s.queue) < entries || len(s.queue) == 0 {
		s.attempts = 0
	}
	m.line(s, n, "discarded", 0, "", fmt.Sprintf("older than MaximumRecordAgeInSeconds %d; checkpoint %s", int(m.ev.MaximumRecordAge.Seconds()), s.checkpoint))
}

// next is the size of the batch to send now, 0 for none: the batch at the
// start of queue, else up to BatchSize records, whose JSON fits the
// payload quota. With MaximumBatchingWindowInSeconds, a batch short of
// BatchSize waits for more until the window ends ("Lambda reads records
// from the event source until it has gathered a full batch, the batching
// window expires, or the batch reaches the payload limit", [with-ddb]),
// and "the next batching window begins as soon as the previous function
// invocation completes" [esm].
func (m *mapping) next(s *shard) int {
	if len(s.queue) > 0 {
		return s.queue[0]
	}
	if len(s.buf) == 0 {
		return 0
	}
	n := min(len(s.buf), m.ev.BatchSize)
	if w := m.ev.BatchingWindow; w > 0 && n < m.ev.BatchSize && !s.ended && m.p.now().Sub(s.since) < w {
		return 0
	}
	for n > 1 && len(payload(s.buf[:n])) > maxPayload {
		n /= 2
	}
	s.queue = []int{n}
	return n
}

// payload is the event of a batch: {"Records": [...]}.
func payload(batch []item) []byte {
	b := []byte(`{"Records":[`)
	for i, it := range batch {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.json...)
	}
	return append(b, "]}"...)
}

// consume marks the first n records of buf done: the checkpoint passes
// them, and the batches of queue that covered them go.
func (s *shard) consume(n int) {
	if n <= 0 {
		return
	}
	s.checkpoint = s.buf[n-1].rec.Change.SequenceNumber
	s.buf = s.buf[n:]
	for n > 0 && len(s.queue) > 0 {
		if s.queue[0] <= n {
			n -= s.queue[0]
			s.queue = s.queue[1:]
		} else {
			s.queue[0] -= n
			n = 0
		}
	}
}

// readFailed says why the stream could not be read, and returns the wait
// before the next try.
func (m *mapping) readFailed(err error) time.Duration {
	m.errors++
	wait := retryWait(m.errors)
	fmt.Fprintln(m.p.Out, termsafe.Escape(fmt.Sprintf("%s stream %s → %s not read | %v | again in %s", m.p.now().Format("15:04:05"), m.ev.TableName, m.ev.Function, err, wait)))
	return wait
}

// retryWait is the wait before the attempt after n failed ones.
func retryWait(n int) time.Duration {
	d := firstRetry
	for i := 1; i < n && d < lastRetry; i++ {
		d *= 2
	}
	return min(d, lastRetry)
}

func sortedKeys(m map[string]*mapping) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
