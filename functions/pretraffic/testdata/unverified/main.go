// Command unverified is a broken authorizer for the hook's tests: it allows
// every token that has the shape of a JWT (a JSON header and JSON claims),
// without checking its signature, issuer or expiry. It refuses a malformed
// token, so only a well-formed token with a wrong signature catches it. The
// PreTraffic hook must refuse it.
package main

import (
	"context"
	"errors"
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
	"github.com/golang-jwt/jwt/v5"
)

func main() {
	lambda.Start(func(_ context.Context, ev events.APIGatewayCustomAuthorizerRequest) (events.APIGatewayCustomAuthorizerResponse, error) {
		scheme, token, _ := strings.Cut(ev.AuthorizationToken, " ")
		if !strings.EqualFold(scheme, "Bearer") {
			return events.APIGatewayCustomAuthorizerResponse{}, errors.New("Unauthorized")
		}
		if _, _, err := jwt.NewParser().ParseUnverified(token, jwt.MapClaims{}); err != nil {
			return events.APIGatewayCustomAuthorizerResponse{}, errors.New("Unauthorized")
		}
		return events.APIGatewayCustomAuthorizerResponse{
			PrincipalID: "anyone",
			PolicyDocument: events.APIGatewayCustomAuthorizerPolicy{Version: "2012-10-17", Statement: []events.IAMPolicyStatement{
				{Action: []string{"execute-api:Invoke"}, Effect: "Allow", Resource: []string{ev.MethodArn}},
			}},
		}, nil
	})
}
