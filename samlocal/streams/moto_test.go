package streams_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"

	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/eventfilter"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/streams"
)

func TestMain(m *testing.M) { dynamoemutest.Main(m) }

// consumer keeps each batch it gets and fails the records of items named
// "poison" as batch item failures.
type consumer struct {
	mu      sync.Mutex
	batches []events.DynamoDBEvent
}

func (c *consumer) Invoke(_ context.Context, _ string, payload []byte) ([]byte, bool, error) {
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, false, err
	}
	c.mu.Lock()
	c.batches = append(c.batches, ev)
	c.mu.Unlock()
	var resp events.DynamoDBEventResponse
	for _, r := range ev.Records {
		if r.Change.Keys["pk"].String() == "poison" {
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
		}
	}
	answer, _ := json.Marshal(resp)
	return answer, false, nil
}

// got lists the records of each batch as "EVENT pk".
func (c *consumer) got() [][]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out [][]string
	for _, b := range c.batches {
		var recs []string
		for _, r := range b.Records {
			recs = append(recs, r.EventName+" "+r.Change.Keys["pk"].String())
		}
		out = append(out, recs)
	}
	return out
}

// The poller on moto, as samlocal runs it: a table's changes reach the
// function as Lambda sends them (each record's images by the stream's view
// type, the stream's ARN, eventVersion 1.1, the region); a record the
// filter drops never comes; a poison record reported as a batch item
// failure is retried from its sequence number, with the records after it,
// and discarded past MaximumRetryAttempts; the records written next come.
func TestDeliversAMotoTablesChanges(t *testing.T) {
	srv := dynamoemutest.Moto(t)
	ctx := context.Background()
	db := srv.Client()
	table := "streams-" + rand.Text()[:8]
	err := dynamoemu.CreateTable(ctx, db, &dynamodb.CreateTableInput{
		TableName: aws.String(table), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
		StreamSpecification:  &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages},
	})
	if err != nil {
		t.Fatal(err)
	}
	put := func(pk, color string) {
		t.Helper()
		item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}, "color": &types.AttributeValueMemberS{Value: color}, "n": &types.AttributeValueMemberN{Value: "7"}}
		if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			t.Fatal(err)
		}
	}
	put("a", "green")
	put("a", "red")
	put("skip", "blue")
	put("poison", "black")
	if _, err := db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: &table, Key: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}); err != nil {
		t.Fatal(err)
	}

	skip, err := eventfilter.Parse(`{"dynamodb": {"Keys": {"pk": {"S": [{"anything-but": ["skip"]}]}}}}`)
	if err != nil {
		t.Fatal(err)
	}
	ev := samtemplate.StreamEvent{Function: "Audit", Event: "Changes", Table: "T", TableName: table, StartingPosition: "TRIM_HORIZON",
		BatchSize: 10, MaximumRetryAttempts: 1, ReportBatchItemFailures: true, Filters: eventfilter.Criteria{skip}}
	var out bytes.Buffer
	var outMu sync.Mutex
	fn := &consumer{}
	p := &streams.Poller{Streams: srv.Streams(), Out: lockedWriter{&outMu, &out}}
	p.Serve(ctx, []samtemplate.StreamEvent{ev}, fn)
	defer p.Stop()

	want := [][]string{
		{"INSERT a", "MODIFY a", "INSERT poison", "REMOVE a"}, // poison fails: 2 done
		{"INSERT poison", "REMOVE a"},                         // retry 1 of 1 fails: discarded
		{"INSERT b"},
	}
	deadline := time.Now().Add(20 * time.Second) // a failure bound, not a measure
	for len(fn.got()) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("batches %v, want %v", fn.got(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	put("b", "white")
	for len(fn.got()) < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("batches %v, want %v", fn.got(), want)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := fn.got(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("batches\n got %v\nwant %v", got, want)
	}

	streamsOf, err := srv.Streams().ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: &table})
	if err != nil {
		t.Fatal(err)
	}
	fn.mu.Lock()
	recs := fn.batches[0].Records
	fn.mu.Unlock()
	modify := recs[1]
	if modify.EventSourceArn != aws.ToString(streamsOf.Streams[0].StreamArn) || modify.EventVersion != "1.1" || modify.AWSRegion != dynamoemu.Region || modify.EventSource != "aws:dynamodb" ||
		modify.Change.OldImage["color"].String() != "green" || modify.Change.NewImage["color"].String() != "red" || modify.Change.NewImage["n"].Number() != "7" ||
		modify.Change.StreamViewType != "NEW_AND_OLD_IMAGES" || modify.Change.ApproximateCreationDateTime.IsZero() || modify.Change.SizeBytes == 0 {
		t.Errorf("the MODIFY record: %+v", modify)
	}
	if remove := recs[3]; remove.Change.NewImage != nil || remove.Change.OldImage["color"].String() != "red" {
		t.Errorf("the REMOVE record's images: %+v", remove.Change)
	}
	outMu.Lock()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	outMu.Unlock()
	if len(lines) != 3 || !strings.Contains(lines[0], "4 records partial") || !strings.Contains(lines[1], "retries exhausted (MaximumRetryAttempts 1): 2 records discarded") || !strings.Contains(lines[2], "1 record delivered") {
		t.Errorf("lines:\n%s", strings.Join(lines, "\n"))
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
