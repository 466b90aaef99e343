// Command rawput is the floor for warm invocations: a hand-written Lambda
// that decodes the same REST proxy event and makes one unconditional PutItem,
// with no validation, no condition, no adapter and no logging.
package main

import (
	"context"
	"encoding/json"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	client := dynamodb.NewFromConfig(cfg)
	table := os.Getenv("TABLE_NAME")
	lambda.Start(func(ctx context.Context, ev events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		var p struct {
			ID   json.Number `json:"id"`
			Name string      `json:"name"`
			Tag  *string     `json:"tag"`
		}
		if err := json.Unmarshal([]byte(ev.Body), &p); err != nil {
			return events.APIGatewayProxyResponse{StatusCode: 400}, nil
		}
		item := map[string]types.AttributeValue{
			"id":        &types.AttributeValueMemberN{Value: p.ID.String()},
			"name":      &types.AttributeValueMemberS{Value: p.Name},
			"createdAt": &types.AttributeValueMemberS{Value: time.Now().UTC().Format(time.RFC3339)},
		}
		if p.Tag != nil {
			item["tag"] = &types.AttributeValueMemberS{Value: *p.Tag}
		}
		if _, err := client.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
			return events.APIGatewayProxyResponse{StatusCode: 500}, nil
		}
		body, _ := json.Marshal(map[string]any{"name": p.Name, "tag": p.Tag})
		return events.APIGatewayProxyResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(body)}, nil
	})
}
