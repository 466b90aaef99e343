// Command orders answers GET /orders/{id} of the shop's HTTP API, behind
// its JWT authorizer: the order and the customer the token names.
package main

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(_ context.Context, req events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		customer := ""
		if a := req.RequestContext.Authorizer; a != nil && a.JWT != nil {
			customer = a.JWT.Claims["sub"]
		}
		body, _ := json.Marshal(map[string]string{"order": req.PathParameters["id"], "customer": customer})
		return events.APIGatewayV2HTTPResponse{StatusCode: http.StatusOK, Headers: map[string]string{"Content-Type": "application/json"}, Body: string(body)}, nil
	})
}
