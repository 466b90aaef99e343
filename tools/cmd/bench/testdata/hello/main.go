// Command hello is the floor for cold starts: a Go Lambda that does nothing,
// built with the same flags as the functions.
package main

import (
	"context"
	"encoding/json"

	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, json.RawMessage) (string, error) { return "hello", nil })
}
