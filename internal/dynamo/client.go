package dynamo

import (
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
)

// NewClientFromEnv makes a DynamoDB client from the environment a Lambda
// function has: AWS_REGION and the role's AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN, plus the SDK's endpoint
// variables AWS_ENDPOINT_URL_DYNAMODB (or AWS_ENDPOINT_URL). It reads no
// files and links none of the SDK's SSO, SSO-OIDC or STS clients, which
// config.LoadDefaultConfig would, and so starts faster and weighs less; the
// client keeps the SDK's standard retryer and HTTP client.
// Use config.LoadDefaultConfig where profiles or SSO matter (a laptop).
func NewClientFromEnv(getenv func(string) string) (*dynamodb.Client, error) {
	region := getenv("AWS_REGION")
	if region == "" {
		region = getenv("AWS_DEFAULT_REGION")
	}
	if region == "" {
		return nil, errors.New("AWS_REGION is not set")
	}
	key, secret := getenv("AWS_ACCESS_KEY_ID"), getenv("AWS_SECRET_ACCESS_KEY")
	if key == "" || secret == "" {
		return nil, errors.New("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set")
	}
	opts := dynamodb.Options{
		Region:      region,
		Credentials: aws.NewCredentialsCache(credentials.NewStaticCredentialsProvider(key, secret, getenv("AWS_SESSION_TOKEN"))),
	}
	if getenv("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS") != "true" {
		for _, name := range []string{"AWS_ENDPOINT_URL_DYNAMODB", "AWS_ENDPOINT_URL"} {
			if u := getenv(name); u != "" {
				opts.BaseEndpoint = aws.String(u)
				break
			}
		}
	}
	return dynamodb.New(opts), nil
}
