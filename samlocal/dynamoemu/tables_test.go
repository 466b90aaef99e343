package dynamoemu

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// A table of the template is created with its own key schema, attribute
// definitions and indexes, on demand; a SimpleTable with its PrimaryKey,
// a string "id" by default. The tables are made on dynalite and its seed
// items put where their key is free.
func TestTablesAreTheTemplates(t *testing.T) {
	t.Parallel()
	var props map[string]any
	_ = json.Unmarshal([]byte(`{
	  "BillingMode": "PROVISIONED", "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
	  "AttributeDefinitions": [{"AttributeName": "sku", "AttributeType": "S"}, {"AttributeName": "category", "AttributeType": "S"}],
	  "KeySchema": [{"AttributeName": "sku", "KeyType": "HASH"}],
	  "GlobalSecondaryIndexes": [{"IndexName": "ByCategory", "KeySchema": [{"AttributeName": "category", "KeyType": "HASH"}],
	    "Projection": {"ProjectionType": "ALL"}, "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}],
	  "StreamSpecification": {"StreamViewType": "NEW_IMAGE"}}`), &props)
	in, err := TableInput("Products", "AWS::DynamoDB::Table", props)
	if err != nil {
		t.Fatal(err)
	}
	if aws.ToString(in.KeySchema[0].AttributeName) != "sku" || len(in.AttributeDefinitions) != 2 || aws.ToString(in.GlobalSecondaryIndexes[0].IndexName) != "ByCategory" ||
		in.GlobalSecondaryIndexes[0].ProvisionedThroughput != nil || in.BillingMode != types.BillingModePayPerRequest || in.StreamSpecification.StreamViewType != types.StreamViewTypeNewImage {
		t.Errorf("CreateTable input %+v", in)
	}
	simple, err := TableInput("Simple", "AWS::Serverless::SimpleTable", nil)
	if err != nil || aws.ToString(simple.KeySchema[0].AttributeName) != "id" || simple.AttributeDefinitions[0].AttributeType != types.ScalarAttributeTypeS {
		t.Errorf("SimpleTable without PrimaryKey: %+v, %v", simple, err)
	}
	if _, err := TableInput("Bad", "AWS::DynamoDB::Table", map[string]any{}); err == nil {
		t.Error("a table without KeySchema was taken")
	}

	seedFile := filepath.Join(t.TempDir(), "seed.json")
	if err := os.WriteFile(seedFile, []byte(`{"Products": [{"PutRequest": {"Item": {"sku": {"S": "A"}, "category": {"S": "x"}, "n": {"N": "1.5"}, "tags": {"SS": ["a", "b"]}, "m": {"M": {"ok": {"BOOL": true}}}, "l": {"L": [{"NULL": true}, {"B": "aGk="}]}}}}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	seed, err := ReadSeed(seedFile)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := StartDynalite("")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	defer srv.Stop()
	ctx, c := context.Background(), srv.Client()
	if err := CreateTable(ctx, c, in); err != nil {
		t.Fatal(err)
	}
	// An item changed since stays as it is.
	if _, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Products"), Item: map[string]types.AttributeValue{"sku": &types.AttributeValueMemberS{Value: "A"}, "category": &types.AttributeValueMemberS{Value: "mine"}}}); err != nil {
		t.Fatal(err)
	}
	if err := seed.Put(ctx, c, []*dynamodb.CreateTableInput{in}); err != nil {
		t.Fatal(err)
	}
	out, err := c.Query(ctx, &dynamodb.QueryInput{TableName: aws.String("Products"), IndexName: aws.String("ByCategory"),
		KeyConditionExpression: aws.String("category = :c"), ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: "mine"}}})
	if err != nil || len(out.Items) != 1 {
		t.Errorf("the index holds %v, %v; want the item changed by hand, kept", out, err)
	}
	if err := (Seed{"Nope": nil}).Put(ctx, c, []*dynamodb.CreateTableInput{in}); err == nil {
		t.Error("a seed for a table the template lacks was taken")
	}
}
