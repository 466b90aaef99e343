package streams

import (
	"strings"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams/types"
)

// eventRecord is a GetRecords record as Lambda hands it to the function
// (aws-lambda-go's events.DynamoDBEventRecord): the record's own fields,
// with what Lambda adds and sets itself ("Using AWS Lambda with Amazon
// DynamoDB", https://docs.aws.amazon.com/lambda/latest/dg/with-ddb.html,
// its example event): eventSourceARN, the stream's ARN, which GetRecords
// does not return; eventVersion "1.1" (moto's GetRecords says "1.0");
// awsRegion, the stream's region (moto says us-east-1 for every region).
func eventRecord(r types.Record, streamARN string) events.DynamoDBEventRecord {
	e := events.DynamoDBEventRecord{
		AWSRegion:      region(streamARN),
		EventID:        aws.ToString(r.EventID),
		EventName:      string(r.EventName),
		EventSource:    "aws:dynamodb",
		EventVersion:   "1.1",
		EventSourceArn: streamARN,
	}
	if r.UserIdentity != nil { // a TTL delete
		e.UserIdentity = &events.DynamoDBUserIdentity{Type: aws.ToString(r.UserIdentity.Type), PrincipalID: aws.ToString(r.UserIdentity.PrincipalId)}
	}
	if d := r.Dynamodb; d != nil {
		e.Change = events.DynamoDBStreamRecord{
			Keys:           attributes(d.Keys),
			NewImage:       attributes(d.NewImage),
			OldImage:       attributes(d.OldImage),
			SequenceNumber: aws.ToString(d.SequenceNumber),
			SizeBytes:      aws.ToInt64(d.SizeBytes),
			StreamViewType: string(d.StreamViewType),
		}
		if d.ApproximateCreationDateTime != nil {
			e.Change.ApproximateCreationDateTime = events.SecondsEpochTime{Time: *d.ApproximateCreationDateTime}
		}
	}
	return e
}

// region is the region of an ARN, arn:partition:service:region:...
func region(arn string) string {
	parts := strings.SplitN(arn, ":", 5)
	if len(parts) < 5 {
		return ""
	}
	return parts[3]
}

func attributes(m map[string]types.AttributeValue) map[string]events.DynamoDBAttributeValue {
	if m == nil {
		return nil
	}
	out := make(map[string]events.DynamoDBAttributeValue, len(m))
	for k, v := range m {
		out[k] = attribute(v)
	}
	return out
}

// attribute turns the SDK's union into the event's value, whose
// MarshalJSON writes DynamoDB's wire form ({"S": ...}, {"N": "..."}).
func attribute(v types.AttributeValue) events.DynamoDBAttributeValue {
	switch x := v.(type) {
	case *types.AttributeValueMemberS:
		return events.NewStringAttribute(x.Value)
	case *types.AttributeValueMemberN:
		return events.NewNumberAttribute(x.Value)
	case *types.AttributeValueMemberB:
		return events.NewBinaryAttribute(x.Value)
	case *types.AttributeValueMemberBOOL:
		return events.NewBooleanAttribute(x.Value)
	case *types.AttributeValueMemberNULL:
		return events.NewNullAttribute()
	case *types.AttributeValueMemberSS:
		return events.NewStringSetAttribute(x.Value)
	case *types.AttributeValueMemberNS:
		return events.NewNumberSetAttribute(x.Value)
	case *types.AttributeValueMemberBS:
		return events.NewBinarySetAttribute(x.Value)
	case *types.AttributeValueMemberL:
		l := make([]events.DynamoDBAttributeValue, len(x.Value))
		for i, e := range x.Value {
			l[i] = attribute(e)
		}
		return events.NewListAttribute(l)
	case *types.AttributeValueMemberM:
		m := attributes(x.Value)
		if m == nil {
			m = map[string]events.DynamoDBAttributeValue{}
		}
		return events.NewMapAttribute(m)
	}
	return events.NewNullAttribute() // a type newer than this SDK
}
