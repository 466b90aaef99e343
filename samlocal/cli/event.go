package cli

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"
)

// eventKind is one event of samlocal generate-event: SAM CLI's service
// and event names and tags (samcli/lib/generated_sample_events/
// event-mapping.json), with its defaults, made with aws-lambda-go's event
// types so that a Go handler reads it as it reads the real one.
type eventKind struct {
	tags map[string]string // tag: default
	make func(tag func(string) string) any
}

var eventKinds = map[string]map[string]eventKind{
	"apigateway": {
		"aws-proxy": {
			tags: map[string]string{"body": `{"test":"body"}`, "stage": "prod", "method": "POST", "resource": "/{proxy+}", "path": "path/to/resource", "account-id": "123456789012"},
			make: func(tag func(string) string) any {
				path := "/" + strings.TrimPrefix(tag("path"), "/")
				return events.APIGatewayProxyRequest{
					Resource: tag("resource"), Path: path, HTTPMethod: tag("method"),
					Headers:           map[string]string{"Accept": "*/*", "Content-Type": "application/json", "Host": "1234567890.execute-api.us-east-1.amazonaws.com"},
					MultiValueHeaders: map[string][]string{"Accept": {"*/*"}, "Content-Type": {"application/json"}, "Host": {"1234567890.execute-api.us-east-1.amazonaws.com"}},
					PathParameters:    map[string]string{"proxy": path},
					RequestContext: events.APIGatewayProxyRequestContext{
						AccountID: tag("account-id"), ResourcePath: tag("resource"), Stage: tag("stage"), RequestID: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
						HTTPMethod: tag("method"), APIID: "1234567890", Path: "/" + tag("stage") + path,
						Identity: events.APIGatewayRequestIdentity{SourceIP: "127.0.0.1", UserAgent: "Custom User Agent String"},
					},
					Body: base64.StdEncoding.EncodeToString([]byte(tag("body"))), IsBase64Encoded: true,
				}
			},
		},
		"http-api-proxy": {
			tags: map[string]string{"body": `{"test":"body"}`, "stage": "$default", "method": "POST", "path": "path/to/resource", "account-id": "123456789012"},
			make: func(tag func(string) string) any {
				path := "/" + strings.TrimPrefix(tag("path"), "/")
				return events.APIGatewayV2HTTPRequest{
					Version: "2.0", RouteKey: "$default", RawPath: path,
					Headers: map[string]string{"content-type": "application/json", "host": "1234567890.execute-api.us-east-1.amazonaws.com"},
					RequestContext: events.APIGatewayV2HTTPRequestContext{
						AccountID: tag("account-id"), APIID: "1234567890", Stage: tag("stage"), RouteKey: "$default", RequestID: "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
						HTTP:      events.APIGatewayV2HTTPRequestContextHTTPDescription{Method: tag("method"), Path: path, Protocol: "HTTP/1.1", SourceIP: "127.0.0.1", UserAgent: "Custom User Agent String"},
						TimeEpoch: time.Date(2020, 3, 9, 15, 58, 5, 0, time.UTC).UnixMilli(), Time: "09/Mar/2020:15:58:05 +0000",
					},
					Body: base64.StdEncoding.EncodeToString([]byte(tag("body"))), IsBase64Encoded: true,
				}
			},
		},
		"authorizer": {
			tags: map[string]string{"account-id": "123456789012", "partition": "aws", "region": "us-east-1", "stage": "prod", "method": "POST", "resource": "{proxy+}", "restApiId": "example", "token": "allow"},
			make: func(tag func(string) string) any {
				return events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: tag("token"), MethodArn: methodARN(tag)}
			},
		},
		"request-authorizer": {
			tags: map[string]string{"account-id": "123456789012", "partition": "aws", "region": "us-east-1", "stage": "test", "method": "GET", "resource": "request", "restApiId": "abcdef123"},
			make: func(tag func(string) string) any {
				return events.APIGatewayCustomAuthorizerRequestTypeRequest{
					Type: "REQUEST", MethodArn: methodARN(tag), Resource: "/" + tag("resource"), Path: "/" + tag("resource"), HTTPMethod: tag("method"),
					Headers:        map[string]string{"Accept": "*/*"},
					RequestContext: events.APIGatewayCustomAuthorizerRequestTypeRequestContext{AccountID: tag("account-id"), APIID: tag("restApiId"), Stage: tag("stage"), HTTPMethod: tag("method"), ResourcePath: "/" + tag("resource")},
				}
			},
		},
	},
	"dynamodb": {
		"update": {
			tags: map[string]string{"account-id": "123456789012", "partition": "aws", "region": "us-east-1", "table": "ExampleTableWithStream"},
			make: func(tag func(string) string) any {
				arn := fmt.Sprintf("arn:%s:dynamodb:%s:%s:table/%s/stream/2015-06-27T00:48:05.899", tag("partition"), tag("region"), tag("account-id"), tag("table"))
				record := func(name string, seq string, keys, newImage, oldImage map[string]events.DynamoDBAttributeValue, view string) events.DynamoDBEventRecord {
					return events.DynamoDBEventRecord{
						EventID: "c4ca4238a0b923820dcc509a6f75849" + seq[len(seq)-1:], EventName: name, EventVersion: "1.1", EventSource: "aws:dynamodb",
						AWSRegion: tag("region"), EventSourceArn: arn,
						Change: events.DynamoDBStreamRecord{Keys: keys, NewImage: newImage, OldImage: oldImage, SequenceNumber: seq, SizeBytes: 26, StreamViewType: view},
					}
				}
				key := map[string]events.DynamoDBAttributeValue{"Id": events.NewNumberAttribute("101")}
				return events.DynamoDBEvent{Records: []events.DynamoDBEventRecord{
					record("INSERT", "111", key, map[string]events.DynamoDBAttributeValue{"Message": events.NewStringAttribute("New item!"), "Id": events.NewNumberAttribute("101")}, nil, "NEW_AND_OLD_IMAGES"),
					record("MODIFY", "222", key, map[string]events.DynamoDBAttributeValue{"Message": events.NewStringAttribute("This item has changed"), "Id": events.NewNumberAttribute("101")},
						map[string]events.DynamoDBAttributeValue{"Message": events.NewStringAttribute("New item!"), "Id": events.NewNumberAttribute("101")}, "NEW_AND_OLD_IMAGES"),
					record("REMOVE", "333", key, nil, map[string]events.DynamoDBAttributeValue{"Message": events.NewStringAttribute("This item has changed"), "Id": events.NewNumberAttribute("101")}, "NEW_AND_OLD_IMAGES"),
				}}
			},
		},
	},
}

func methodARN(tag func(string) string) string {
	return fmt.Sprintf("arn:%s:execute-api:%s:%s:%s/%s/%s/%s", tag("partition"), tag("region"), tag("account-id"), tag("restApiId"), tag("stage"), tag("method"), tag("resource"))
}

// generateEvent is samlocal generate-event SERVICE EVENT [--TAG VALUE ...]:
// the event on stdout, as sam local generate-event prints it.
func generateEvent(args []string, stdout, stderr io.Writer) error {
	list := func() string {
		var lines []string
		for _, svc := range slices.Sorted(maps.Keys(eventKinds)) {
			lines = append(lines, svc+": "+strings.Join(slices.Sorted(maps.Keys(eventKinds[svc])), ", "))
		}
		return strings.Join(lines, "\n")
	}
	if len(args) < 2 {
		fmt.Fprintf(stderr, "usage: samlocal generate-event SERVICE EVENT [--TAG VALUE ...]\n%s\n", list())
		return errors.New("generate-event needs a service and an event")
	}
	kind, ok := eventKinds[args[0]][args[1]]
	if !ok {
		return fmt.Errorf("no event %s %s; samlocal makes:\n%s", args[0], args[1], list())
	}
	fs := flag.NewFlagSet("samlocal generate-event "+args[0]+" "+args[1], flag.ContinueOnError)
	fs.SetOutput(stderr)
	values := map[string]*string{}
	for _, t := range slices.Sorted(maps.Keys(kind.tags)) {
		values[t] = fs.String(t, kind.tags[t], "")
	}
	if err := fs.Parse(args[2:]); err != nil {
		return err
	}
	out, err := json.MarshalIndent(kind.make(func(t string) string { return *values[t] }), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", out)
	return err
}
