// Command audit keeps the shop's audit trail. It consumes ProductsTable's
// stream: for each product put or changed it writes an item to
// AuditTable, keyed by the record's sequence number (a record delivered
// twice writes the same item). A product named "poison" is reported as a
// batch item failure, so Lambda retries the batch from it and, past
// MaximumRetryAttempts, discards it. GET /audit lists what it wrote,
// GET /audit?sku= of one product.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"os"
	"slices"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

type entry struct {
	ID      string `json:"id" dynamodbav:"id"` // the record's sequence number
	SKU     string `json:"sku" dynamodbav:"sku"`
	Event   string `json:"event" dynamodbav:"event"`
	Name    string `json:"name" dynamodbav:"name"`
	Source  string `json:"source" dynamodbav:"source"` // the stream's ARN
	Region  string `json:"region" dynamodbav:"region"`
	Version string `json:"version" dynamodbav:"version"`
}

type app struct {
	db    *dynamodb.Client
	table string
}

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	a := app{db: dynamodb.NewFromConfig(cfg), table: os.Getenv("AUDIT_TABLE")}
	// One function, two event sources: a stream batch has Records, an
	// API request does not.
	lambda.Start(func(ctx context.Context, raw json.RawMessage) (any, error) {
		var batch events.DynamoDBEvent
		if err := json.Unmarshal(raw, &batch); err == nil && batch.Records != nil {
			return a.consume(ctx, batch)
		}
		var req events.APIGatewayProxyRequest
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		return a.list(ctx, req.QueryStringParameters["sku"])
	})
}

func (a app) consume(ctx context.Context, batch events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	var resp events.DynamoDBEventResponse
	for _, r := range batch.Records {
		name := ""
		if v, ok := r.Change.NewImage["name"]; ok && v.DataType() == events.DataTypeString {
			name = v.String()
		}
		if name == "poison" {
			// Lambda retries from the first failure: the records after it
			// come again with it.
			resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: r.Change.SequenceNumber})
			return resp, nil
		}
		e := entry{ID: r.Change.SequenceNumber, SKU: r.Change.Keys["sku"].String(), Event: r.EventName, Name: name,
			Source: r.EventSourceArn, Region: r.AWSRegion, Version: r.EventVersion}
		item, err := attributevalue.MarshalMap(e)
		if err != nil {
			return resp, err
		}
		if _, err := a.db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &a.table, Item: item}); err != nil {
			return resp, err // a function error: the whole batch again
		}
	}
	return resp, nil
}

func (a app) list(ctx context.Context, sku string) (events.APIGatewayProxyResponse, error) {
	in := &dynamodb.ScanInput{TableName: &a.table, ConsistentRead: aws.Bool(true)}
	if sku != "" {
		in.FilterExpression = aws.String("sku = :s")
		in.ExpressionAttributeValues = map[string]types.AttributeValue{":s": &types.AttributeValueMemberS{Value: sku}}
	}
	out, err := a.db.Scan(ctx, in)
	if err != nil {
		return events.APIGatewayProxyResponse{}, err
	}
	entries := []entry{}
	_ = attributevalue.UnmarshalListOfMaps(out.Items, &entries)
	// In the stream's order: sequence numbers compare as numbers.
	slices.SortFunc(entries, func(x, y entry) int { return cmp.Or(cmp.Compare(len(x.ID), len(y.ID)), cmp.Compare(x.ID, y.ID)) })
	body, _ := json.Marshal(entries)
	return events.APIGatewayProxyResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(body)}, nil
}
