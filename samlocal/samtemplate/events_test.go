package samtemplate

import (
	"slices"
	"strings"
	"testing"
	"time"
)

const streamsTemplate = `
Parameters:
  Batch: {Type: Number, Default: 25}
Globals:
  Function: {Runtime: provided.al2023, Handler: bootstrap}
Resources:
  Products:
    Type: AWS::DynamoDB::Table
    Properties:
      TableName: products
      KeySchema: [{AttributeName: sku, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: sku, AttributeType: S}]
      StreamSpecification: {StreamViewType: NEW_AND_OLD_IMAGES}
  Plain:
    Type: AWS::DynamoDB::Table
    Properties:
      KeySchema: [{AttributeName: id, KeyType: HASH}]
      AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
  Audit:
    Type: AWS::Serverless::Function
    Properties:
      Events:
        Changes:
          Type: DynamoDB
          Properties:
            Stream: !GetAtt Products.StreamArn
            StartingPosition: TRIM_HORIZON
            BatchSize: !Ref Batch
            MaximumBatchingWindowInSeconds: 2
            MaximumRetryAttempts: 3
            MaximumRecordAgeInSeconds: 120
            BisectBatchOnFunctionError: true
            FunctionResponseTypes: [ReportBatchItemFailures]
            FilterCriteria:
              Filters:
                - Pattern: '{"eventName": ["INSERT", "MODIFY"]}'
                - Pattern: {dynamodb: {NewImage: {poison: {BOOL: [true]}}}}
        Defaults:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Products.StreamArn, StartingPosition: LATEST, ParallelizationFactor: 4, DestinationConfig: {OnFailure: {Destination: arn:aws:sqs:us-east-1:123456789012:dlq}}}
        Elsewhere:
          Type: DynamoDB
          Properties: {Stream: arn:aws:dynamodb:us-east-1:123456789012:table/x/stream/2024-01-01T00:00:00.000, StartingPosition: LATEST}
        NoStream:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Plain.StreamArn, StartingPosition: LATEST}
        AtTimestamp:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Products.StreamArn, StartingPosition: AT_TIMESTAMP, StartingPositionTimestamp: 1700000000}
        Window:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Products.StreamArn, StartingPosition: LATEST, TumblingWindowInSeconds: 60}
        Suffix:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Products.StreamArn, StartingPosition: LATEST, FilterCriteria: {Filters: [{Pattern: '{"eventName": [{"suffix": "RT"}]}'}]}}
        Paused:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Products.StreamArn, StartingPosition: LATEST, Enabled: false}
        Big:
          Type: DynamoDB
          Properties: {Stream: !GetAtt Products.StreamArn, StartingPosition: LATEST, BatchSize: 20000}
        Queue:
          Type: SQS
          Properties: {Queue: arn:aws:sqs:us-east-1:123456789012:q}
        Nightly:
          Type: Schedule
          Properties: {Schedule: rate(1 day)}
        Get:
          Type: Api
          Properties: {Path: /x, Method: get}
        Http:
          Type: HttpApi
  Mapped:
    Type: AWS::Serverless::Function
  MappedChanges:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {EventSourceArn: !GetAtt Products.StreamArn, FunctionName: !Ref Mapped, StartingPosition: TRIM_HORIZON, BatchSize: 7}
  KinesisMapping:
    Type: AWS::Lambda::EventSourceMapping
    Properties: {EventSourceArn: arn:aws:kinesis:us-east-1:123456789012:stream/s, FunctionName: !Ref Mapped, StartingPosition: LATEST}
`

// A DynamoDB event is read as the SAM translator passes it to
// AWS::Lambda::EventSourceMapping, with Lambda's defaults for what it
// leaves out; the table is found by the logical ID of its !GetAtt
// Table.StreamArn, which sam local leaves unresolved. An
// AWS::Lambda::EventSourceMapping on a table's stream is read alike.
func TestStreamEventsAreReadAsLambdaMapsThem(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(streamsTemplate))
	if err != nil {
		t.Fatal(err)
	}
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		t.Fatal(err)
	}
	evs, _, err := tpl.StreamEvents(fns)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.ID())
	}
	if want := []string{"Audit/Changes", "Audit/Defaults", "Mapped/MappedChanges"}; !slices.Equal(ids, want) {
		t.Fatalf("served %v, want %v", ids, want)
	}
	c := evs[0]
	if c.Table != "Products" || c.TableName != "products" || c.StartingPosition != "TRIM_HORIZON" || c.BatchSize != 25 || c.BatchingWindow != 2*time.Second ||
		c.MaximumRetryAttempts != 3 || c.MaximumRecordAge != 2*time.Minute || !c.BisectBatchOnFunctionError || !c.ReportBatchItemFailures || len(c.Filters) != 2 {
		t.Errorf("Changes: %+v", c)
	}
	d := evs[1]
	if d.StartingPosition != "LATEST" || d.BatchSize != 100 || d.BatchingWindow != 0 || d.MaximumRetryAttempts != -1 || d.MaximumRecordAge != 0 ||
		d.BisectBatchOnFunctionError || d.ReportBatchItemFailures || d.Filters != nil {
		t.Errorf("Defaults, Lambda's: %+v", d)
	}
	if m := evs[2]; m.Function != "Mapped" || m.BatchSize != 7 || m.TableName != "products" {
		t.Errorf("the EventSourceMapping: %+v", m)
	}
	if got := StreamConsumers(evs); !slices.Equal(got, []string{"Audit", "Mapped"}) {
		t.Errorf("consumers %v", got)
	}
}

// What is not served of the events is one line each: the DynamoDB events
// left out, and why; what is served otherwise than on AWS; every event
// type nothing of samlocal serves. Api and HttpApi events are served.
func TestUnservedEventsAreSaid(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(streamsTemplate))
	if err != nil {
		t.Fatal(err)
	}
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		t.Fatal(err)
	}
	_, notes, err := tpl.StreamEvents(fns)
	if err != nil {
		t.Fatal(err)
	}
	notes = append(notes, tpl.EventNotes(fns)...)
	for _, want := range []string{
		"Audit: event Defaults (Type DynamoDB) ParallelizationFactor 4 is served as 1: one batch of a shard at a time",
		"Audit: event Defaults (Type DynamoDB) DestinationConfig is not served: a discarded batch is said on the terminal, and sent nowhere",
		"Audit: event Elsewhere (Type DynamoDB) is not served: its Stream is no !GetAtt <Table>.StreamArn of a table of this template",
		"Audit: event NoStream (Type DynamoDB) is not served: table Plain has no StreamSpecification, so no StreamArn",
		"Audit: event AtTimestamp (Type DynamoDB) is not served: StartingPosition AT_TIMESTAMP: DynamoDB streams take TRIM_HORIZON or LATEST",
		"Audit: event Window (Type DynamoDB) is not served: TumblingWindowInSeconds is not served",
		`Audit: event Suffix (Type DynamoDB) is not served: FilterCriteria.Filters[0]: eventName: operator "suffix" is not served`,
		"Audit: event Paused (Type DynamoDB) is not served: the event's Enabled is false, which pauses polling",
		"Audit: event Big (Type DynamoDB) is not served: BatchSize 20000: Lambda takes a whole number from 1 to 10000",
		"KinesisMapping: AWS::Lambda::EventSourceMapping is not served: its EventSourceArn is no !GetAtt <Table>.StreamArn",
		"Audit: event Queue (Type SQS) is not served: nothing of samlocal sends it; samlocal invoke Audit -e EVENT runs the function on one",
		"Audit: event Nightly (Type Schedule) is not served",
	} {
		if !slices.ContainsFunc(notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
			t.Errorf("no note %q in:\n%s", want, strings.Join(notes, "\n"))
		}
	}
	for _, n := range notes {
		if strings.Contains(n, "(Type Api)") || strings.Contains(n, "(Type HttpApi)") || strings.Contains(n, "Changes (") {
			t.Errorf("a served event noted: %s", n)
		}
	}
}
