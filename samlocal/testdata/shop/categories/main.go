// Command categories lists the products of a category:
// GET /categories?category= or GET /categories/{category}/... (a greedy
// route), a query of the table's ByCategory index.
package main

import (
	"context"
	"encoding/json"
	"os"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	db, table := dynamodb.NewFromConfig(cfg), os.Getenv("TABLE_NAME")
	lambda.Start(func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		category := req.QueryStringParameters["category"]
		if proxy, ok := req.PathParameters["proxy"]; ok {
			category, _, _ = strings.Cut(proxy, "/")
		}
		out, err := db.Query(ctx, &dynamodb.QueryInput{
			TableName: &table, IndexName: aws.String("ByCategory"),
			KeyConditionExpression:    aws.String("category = :c"),
			ExpressionAttributeValues: map[string]types.AttributeValue{":c": &types.AttributeValueMemberS{Value: category}},
		})
		if err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		var skus []string
		for _, item := range out.Items {
			var p struct {
				SKU string `dynamodbav:"sku"`
			}
			_ = attributevalue.UnmarshalMap(item, &p)
			skus = append(skus, p.SKU)
		}
		body, _ := json.Marshal(map[string]any{"skus": skus})
		return events.APIGatewayProxyResponse{StatusCode: 200, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(body)}, nil
	})
}
