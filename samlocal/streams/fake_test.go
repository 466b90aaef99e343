package streams

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

const testARN = "arn:aws:dynamodb:eu-west-1:123456789012:table/products/stream/2026-11-28T14:06:53.226"

// fakeStream is a DynamoDB stream in memory, read as the Streams API
// reads one: an iterator is "<shard>|<index>".
type fakeStream struct {
	mu     sync.Mutex
	arn    string
	shards []*fakeShard
	seq    int
	clock  *clock
}

type fakeShard struct {
	id, parent string
	records    []types.Record
	closed     bool
}

func newStream(c *clock) *fakeStream {
	return &fakeStream{arn: testARN, shards: []*fakeShard{{id: "shard-1"}}, seq: 100, clock: c}
}

// put writes a record of the item sku on shard i, created now; extra
// attributes go into its new image.
func (f *fakeStream) put(i int, event types.OperationType, sku string, extra map[string]types.AttributeValue) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	seq := strconv.Itoa(f.seq)
	img := map[string]types.AttributeValue{"sku": &types.AttributeValueMemberS{Value: sku}}
	for k, v := range extra {
		img[k] = v
	}
	at := f.clock.now()
	f.shards[i].records = append(f.shards[i].records, types.Record{
		EventID: aws.String("id-" + seq), EventName: event, EventSource: aws.String("aws:dynamodb"), EventVersion: aws.String("1.0"), AwsRegion: aws.String("us-east-1"),
		Dynamodb: &types.StreamRecord{
			ApproximateCreationDateTime: &at, SequenceNumber: aws.String(seq), SizeBytes: aws.Int64(10), StreamViewType: types.StreamViewTypeNewAndOldImages,
			Keys: map[string]types.AttributeValue{"sku": &types.AttributeValueMemberS{Value: sku}}, NewImage: img,
		},
	})
	return seq
}

func (f *fakeStream) ListStreams(_ context.Context, in *dynamodbstreams.ListStreamsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.ListStreamsOutput, error) {
	if aws.ToString(in.TableName) != "products" {
		return &dynamodbstreams.ListStreamsOutput{}, nil
	}
	label := f.arn[strings.LastIndex(f.arn, "/")+1:]
	return &dynamodbstreams.ListStreamsOutput{Streams: []types.Stream{{StreamArn: aws.String(f.arn), StreamLabel: &label, TableName: in.TableName}}}, nil
}

func (f *fakeStream) DescribeStream(_ context.Context, in *dynamodbstreams.DescribeStreamInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.DescribeStreamOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	desc := &types.StreamDescription{StreamArn: in.StreamArn}
	for _, s := range f.shards {
		sh := types.Shard{ShardId: aws.String(s.id)}
		if s.parent != "" {
			sh.ParentShardId = aws.String(s.parent)
		}
		desc.Shards = append(desc.Shards, sh)
	}
	return &dynamodbstreams.DescribeStreamOutput{StreamDescription: desc}, nil
}

func (f *fakeStream) shard(id string) *fakeShard {
	for _, s := range f.shards {
		if s.id == id {
			return s
		}
	}
	return nil
}

func (f *fakeStream) GetShardIterator(_ context.Context, in *dynamodbstreams.GetShardIteratorInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetShardIteratorOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.shard(aws.ToString(in.ShardId))
	if s == nil || aws.ToString(in.StreamArn) != f.arn {
		return nil, fmt.Errorf("no shard %s", aws.ToString(in.ShardId))
	}
	i := 0
	switch in.ShardIteratorType {
	case types.ShardIteratorTypeLatest:
		i = len(s.records)
	case types.ShardIteratorTypeAfterSequenceNumber:
		i = slices.IndexFunc(s.records, func(r types.Record) bool {
			return aws.ToString(r.Dynamodb.SequenceNumber) == aws.ToString(in.SequenceNumber)
		}) + 1
	}
	return &dynamodbstreams.GetShardIteratorOutput{ShardIterator: aws.String(fmt.Sprintf("%s|%d", s.id, i))}, nil
}

func (f *fakeStream) GetRecords(_ context.Context, in *dynamodbstreams.GetRecordsInput, _ ...func(*dynamodbstreams.Options)) (*dynamodbstreams.GetRecordsOutput, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	id, at, _ := strings.Cut(aws.ToString(in.ShardIterator), "|")
	i, _ := strconv.Atoi(at)
	s := f.shard(id)
	if s == nil {
		return nil, fmt.Errorf("no iterator %s", aws.ToString(in.ShardIterator))
	}
	j := min(len(s.records), i+int(aws.ToInt32(in.Limit)))
	out := &dynamodbstreams.GetRecordsOutput{Records: slices.Clone(s.records[i:j])}
	if !s.closed || j < len(s.records) {
		out.NextShardIterator = aws.String(fmt.Sprintf("%s|%d", id, j))
	}
	return out, nil
}

// clock is the fake time: it moves only when a test, or a wait, moves it.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 28, 14, 3, 5, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// fakeFunction answers each batch by answer (success when nil) and keeps
// the batches it got, as their sequence numbers.
type fakeFunction struct {
	mu      sync.Mutex
	batches [][]string
	events  []events.DynamoDBEvent
	answer  func(seqs []string) (answer []byte, failed bool, err error)
}

func (f *fakeFunction) Invoke(ctx context.Context, function string, payload []byte) ([]byte, bool, error) {
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, false, err
	}
	var seqs []string
	for _, r := range ev.Records {
		seqs = append(seqs, r.Change.SequenceNumber)
	}
	f.mu.Lock()
	f.batches = append(f.batches, seqs)
	f.events = append(f.events, ev)
	answer := f.answer
	f.mu.Unlock()
	if answer == nil {
		return []byte("null"), false, nil
	}
	return answer(seqs)
}

func (f *fakeFunction) got() [][]string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.batches)
}

// failing answers a function error for every batch that holds one of seqs.
func failing(seqs ...string) func([]string) ([]byte, bool, error) {
	return func(batch []string) ([]byte, bool, error) {
		for _, s := range batch {
			if slices.Contains(seqs, s) {
				return []byte(`{"errorType":"errorString","errorMessage":"poison ` + s + `"}`), true, nil
			}
		}
		return []byte("null"), false, nil
	}
}

// event is a mapping with Lambda's defaults, on the table products.
func event() samtemplate.StreamEvent {
	return samtemplate.StreamEvent{Function: "Audit", Event: "Changes", Table: "Products", TableName: "products", StartingPosition: "TRIM_HORIZON", BatchSize: 100, MaximumRetryAttempts: -1}
}

// rig is one mapping on a fake stream and function, stepped by hand.
type rig struct {
	clock  *clock
	stream *fakeStream
	fn     *fakeFunction
	out    *bytes.Buffer
	m      *mapping
}

func newRig(_ *testing.T, ev samtemplate.StreamEvent) *rig {
	c := newClock()
	r := &rig{clock: c, stream: newStream(c), fn: &fakeFunction{}, out: &bytes.Buffer{}}
	p := &Poller{Streams: r.stream, Out: r.out, Now: c.now}
	r.m = &mapping{p: p, ev: ev, fns: r.fn}
	return r
}

// start starts the mapping, as Serve does.
func (r *rig) start() { r.m.start(context.Background()) }

// step runs one step and returns its wait.
func (r *rig) step() time.Duration { return r.m.step(context.Background()) }

// steps runs n steps, moving the clock by each wait, and returns the waits.
func (r *rig) steps(n int) []time.Duration {
	var waits []time.Duration
	for range n {
		w := r.step()
		waits = append(waits, w)
		r.clock.advance(w)
	}
	return waits
}

func (r *rig) lines() []string {
	return strings.Split(strings.TrimSuffix(r.out.String(), "\n"), "\n")
}
