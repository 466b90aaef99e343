package main

import (
	"context"
	"fmt"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/plant"
)

// openDynamo is DynamoDB mode: the table named by TABLE_NAME, reached the way
// the SDK reads the environment (AWS_REGION, AWS_ENDPOINT_URL_DYNAMODB,
// credentials). The table is not checked here: a store that is down answers
// 503 per request.
func openDynamo(ctx context.Context, table string) (plant.Store, string, func() error, error) {
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, "", nil, fmt.Errorf("AWS configuration: %w", err)
	}
	where := "DynamoDB table " + table
	if awsCfg.Region == "" {
		return nil, "", nil, fmt.Errorf("TABLE_NAME is set but no AWS region is: set AWS_REGION")
	}
	store := dynamo.New(dynamodb.NewFromConfig(awsCfg), table, time.Now)
	return store, where, func() error { return nil }, nil
}
