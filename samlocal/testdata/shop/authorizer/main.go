// Command authorizer is the shop's Lambda REQUEST authorizer: it allows a
// request whose X-Shop-Key header is the key its environment holds, and
// names the store of its query in the context.
package main

import (
	"context"
	"errors"
	"os"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	key := os.Getenv("SHOP_KEY")
	lambda.Start(func(_ context.Context, req events.APIGatewayCustomAuthorizerRequestTypeRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		if key == "" || req.Headers["X-Shop-Key"] != key {
			return events.APIGatewayCustomAuthorizerResponse{}, errors.New("Unauthorized") // API Gateway's 401
		}
		return events.APIGatewayCustomAuthorizerResponse{
			PrincipalID: "shop-admin",
			PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: []events.IAMPolicyStatement{
				{Effect: "Allow", Action: []string{"execute-api:Invoke"}, Resource: []string{req.MethodArn}},
			}},
			Context: map[string]any{"store": req.QueryStringParameters["store"]},
		}, nil
	})
}
