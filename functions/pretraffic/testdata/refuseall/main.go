// Command refuseall is a broken authorizer for the hook's tests: it refuses
// every token, a good one too, so every client would get 401. The PreTraffic
// hook must refuse it.
package main

import (
	"context"
	"errors"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, events.APIGatewayCustomAuthorizerRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		return events.APIGatewayCustomAuthorizerResponse{}, errors.New("Unauthorized")
	})
}
