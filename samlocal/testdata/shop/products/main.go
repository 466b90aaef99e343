// Command products stores and reads products: POST /products puts the
// JSON body, GET /products?sku= and GET /products/{sku} read one (the
// latter also behind the admin API's authorizer, whose store it names).
package main

import (
	"context"
	"encoding/json"
	"net/http"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

type product struct {
	SKU      string `json:"sku" dynamodbav:"sku"`
	Name     string `json:"name" dynamodbav:"name"`
	Category string `json:"category" dynamodbav:"category"`
	Currency string `json:"currency" dynamodbav:"currency"`
}

func main() {
	cfg, err := config.LoadDefaultConfig(context.Background())
	if err != nil {
		panic(err)
	}
	db, table := dynamodb.NewFromConfig(cfg), os.Getenv("TABLE_NAME")
	lambda.Start(func(ctx context.Context, req events.APIGatewayProxyRequest) (events.APIGatewayProxyResponse, error) {
		if req.HTTPMethod == http.MethodPost {
			var p product
			if err := json.Unmarshal([]byte(req.Body), &p); err != nil || p.SKU == "" {
				return answer(http.StatusBadRequest, map[string]string{"error": "want a product with a sku"}), nil
			}
			p.Currency = os.Getenv("CURRENCY")
			item, _ := attributevalue.MarshalMap(p)
			if _, err := db.PutItem(ctx, &dynamodb.PutItemInput{TableName: &table, Item: item}); err != nil {
				return events.APIGatewayProxyResponse{}, err
			}
			return answer(http.StatusCreated, p), nil
		}
		sku := req.QueryStringParameters["sku"]
		if s, ok := req.PathParameters["sku"]; ok {
			sku = s
		}
		key, _ := attributevalue.MarshalMap(map[string]string{"sku": sku})
		out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: &table, Key: key, ConsistentRead: aws.Bool(true)})
		if err != nil {
			return events.APIGatewayProxyResponse{}, err
		}
		if out.Item == nil {
			return answer(http.StatusNotFound, map[string]string{"error": "no such product"}), nil
		}
		var p product
		_ = attributevalue.UnmarshalMap(out.Item, &p)
		if store, ok := req.RequestContext.Authorizer["store"].(string); ok {
			return answer(http.StatusOK, map[string]any{"product": p, "store": store}), nil
		}
		return answer(http.StatusOK, p), nil
	})
}

func answer(status int, v any) events.APIGatewayProxyResponse {
	body, _ := json.Marshal(v)
	return events.APIGatewayProxyResponse{StatusCode: status, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(body)}
}
