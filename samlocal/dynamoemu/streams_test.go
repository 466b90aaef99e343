package dynamoemu_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
	stypes "github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"

	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

func table(name string, stream types.StreamViewType) *dynamodb.CreateTableInput {
	in := &dynamodb.CreateTableInput{
		TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash}},
	}
	if stream != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: stream}
	}
	return in
}

// A template with a stream gets moto_server for every table, in memory,
// and says so; its streams are read through the run's signed front, on
// the tables' endpoint, with the Streams client. dynalite has none.
func TestATableWithAStreamIsServedOnMoto(t *testing.T) {
	if _, err := exec.LookPath("moto_server"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	var log bytes.Buffer
	l := &dynamoemu.Local{Dir: t.TempDir(), Log: &log, Tables: []*dynamodb.CreateTableInput{table("Products", types.StreamViewTypeNewAndOldImages), table("Audit", "")}}
	defer l.Stop()
	ctx := context.Background()
	env := map[string]string{"TABLE_NAME": "Audit"}
	if err := l.Provide(ctx, env); err != nil {
		t.Fatal(err)
	}
	if got := log.String(); !strings.HasPrefix(got, "DynamoDB on moto at http://127.0.0.1:") || !strings.Contains(got, "it serves streams (Products), dynalite does not; its data lives in memory (tables Products, Audit)") {
		t.Errorf("the line at start: %q", got)
	}
	srv, err := l.Start(ctx)
	if err != nil || env["AWS_ENDPOINT_URL_DYNAMODB"] != srv.URL {
		t.Fatalf("the function's endpoint %q, the emulator %v, %v", env["AWS_ENDPOINT_URL_DYNAMODB"], srv, err)
	}
	if _, err := srv.Client().PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Products"), Item: map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: "a"}}}); err != nil {
		t.Fatal(err)
	}
	st := srv.Streams()
	streams, err := st.ListStreams(ctx, &dynamodbstreams.ListStreamsInput{TableName: aws.String("Products")})
	if err != nil || len(streams.Streams) != 1 {
		t.Fatalf("streams of Products: %+v, %v", streams, err)
	}
	arn := streams.Streams[0].StreamArn
	desc, err := st.DescribeStream(ctx, &dynamodbstreams.DescribeStreamInput{StreamArn: arn})
	if err != nil {
		t.Fatal(err)
	}
	it, err := st.GetShardIterator(ctx, &dynamodbstreams.GetShardIteratorInput{StreamArn: arn, ShardId: desc.StreamDescription.Shards[0].ShardId, ShardIteratorType: stypes.ShardIteratorTypeTrimHorizon})
	if err != nil {
		t.Fatal(err)
	}
	recs, err := st.GetRecords(ctx, &dynamodbstreams.GetRecordsInput{ShardIterator: it.ShardIterator})
	if err != nil || len(recs.Records) != 1 || recs.Records[0].EventName != stypes.OperationTypeInsert {
		t.Errorf("records: %+v, %v; want the INSERT", recs, err)
	}
	// The front answers the run's credentials only, streams too.
	other := *srv
	other.Credentials = dynamoemu.NewCredentials()
	if _, err := other.Streams().ListStreams(ctx, &dynamodbstreams.ListStreamsInput{}); err == nil || !strings.Contains(err.Error(), "UnrecognizedClientException") {
		t.Errorf("another run's key listed the streams: %v", err)
	}
}

// A template that needs streams where moto_server is not installed is one
// line that says what to install; a reloaded template that gives a table a
// stream while dynalite serves is one line that says to restart.
func TestAStreamWithoutMotoSaysWhatToInstall(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	l := &dynamoemu.Local{Dir: t.TempDir(), Log: &bytes.Buffer{}, Tables: []*dynamodb.CreateTableInput{table("Products", types.StreamViewTypeNewImage)}}
	defer l.Stop()
	_, err := l.Start(context.Background())
	want := "Products has a StreamSpecification: samlocal serves streams on moto_server, which is not installed (pip install 'moto[server]'); dynalite has no streams"
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// The emulator is chosen once: a reloaded template that gives a table a
// stream while dynalite serves is one line that says to restart.
func TestAStreamAddedOnReloadAsksForARestart(t *testing.T) {
	l := &dynamoemu.Local{Dir: t.TempDir(), Log: &bytes.Buffer{}, Tables: []*dynamodb.CreateTableInput{table("Products", "")}}
	defer l.Stop()
	ctx := context.Background()
	if _, err := l.Start(ctx); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	l.SetTables([]*dynamodb.CreateTableInput{table("Products", types.StreamViewTypeKeysOnly)})
	_, err := l.Start(ctx)
	if err == nil || !strings.Contains(err.Error(), "Products now has a StreamSpecification, and the dynalite that runs serves no streams: restart samlocal") {
		t.Errorf("got %v, want the restart line", err)
	}
}
