package dynamoemu

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TableInput is the CreateTable request for a table of the template: an
// AWS::DynamoDB::Table's resolved Properties, whose names are the
// DynamoDB API's (AttributeDefinitions, KeySchema, GlobalSecondaryIndexes,
// LocalSecondaryIndexes, StreamSpecification: the AWS::DynamoDB::Table
// reference), or an AWS::Serverless::SimpleTable's PrimaryKey (Name, "id"
// by default; Type String, Number or Binary, String by default: the SAM
// specification's AWS::Serverless::SimpleTable). Every table is on demand
// locally: capacity is not emulated, so ProvisionedThroughput is dropped
// (an index of an on-demand table may not have one).
func TableInput(name, typ string, props map[string]any) (*dynamodb.CreateTableInput, error) {
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingModePayPerRequest}
	if typ == "AWS::Serverless::SimpleTable" {
		key, _ := props["PrimaryKey"].(map[string]any)
		keyName, _ := key["Name"].(string)
		if keyName == "" {
			keyName = "id"
		}
		keyType := types.ScalarAttributeTypeS
		switch key["Type"] {
		case nil, "String":
		case "Number":
			keyType = types.ScalarAttributeTypeN
		case "Binary":
			keyType = types.ScalarAttributeTypeB
		default:
			return nil, fmt.Errorf("PrimaryKey.Type %v: SAM allows String, Number or Binary", key["Type"])
		}
		in.AttributeDefinitions = []types.AttributeDefinition{{AttributeName: &keyName, AttributeType: keyType}}
		in.KeySchema = []types.KeySchemaElement{{AttributeName: &keyName, KeyType: types.KeyTypeHash}}
		return in, nil
	}
	// The SDK's types carry the API's names, which encoding/json matches.
	var shape struct {
		AttributeDefinitions   []types.AttributeDefinition
		KeySchema              []types.KeySchemaElement
		GlobalSecondaryIndexes []struct {
			IndexName  *string
			KeySchema  []types.KeySchemaElement
			Projection *types.Projection
		}
		LocalSecondaryIndexes []types.LocalSecondaryIndex
		StreamSpecification   *struct{ StreamViewType types.StreamViewType }
	}
	raw, err := json.Marshal(props)
	if err == nil {
		err = json.Unmarshal(raw, &shape)
	}
	if err != nil {
		return nil, fmt.Errorf("read its properties: %w", err)
	}
	if len(shape.KeySchema) == 0 {
		return nil, errors.New("no KeySchema")
	}
	in.AttributeDefinitions, in.KeySchema, in.LocalSecondaryIndexes = shape.AttributeDefinitions, shape.KeySchema, shape.LocalSecondaryIndexes
	for _, g := range shape.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{IndexName: g.IndexName, KeySchema: g.KeySchema, Projection: g.Projection})
	}
	if s := shape.StreamSpecification; s != nil && s.StreamViewType != "" {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: s.StreamViewType}
	}
	return in, nil
}

// Seed is the items a project puts in its local tables before the first
// function runs, read from a file (ReadSeed) in the form that `aws dynamodb
// batch-write-item --request-items file://...` takes: table name to a list
// of {"PutRequest": {"Item": <item in DynamoDB JSON>}}.
type Seed map[string][]map[string]types.AttributeValue

// ReadSeed reads a seed file.
func ReadSeed(path string) (Seed, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var file map[string][]struct {
		PutRequest *struct{ Item map[string]json.RawMessage }
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return nil, fmt.Errorf("%s: %w (want batch-write-item's request items: {\"Table\": [{\"PutRequest\": {\"Item\": {...}}}]})", path, err)
	}
	seed := Seed{}
	for table, reqs := range file {
		for i, r := range reqs {
			if r.PutRequest == nil {
				return nil, fmt.Errorf("%s: %s[%d]: only PutRequest seeds a table", path, table, i)
			}
			item, err := itemOf(r.PutRequest.Item)
			if err != nil {
				return nil, fmt.Errorf("%s: %s[%d]: %w", path, table, i, err)
			}
			seed[table] = append(seed[table], item)
		}
	}
	return seed, nil
}

// Put puts each item of s in its table when no item there has its key
// (attribute_not_exists of the table's partition key): an item changed by
// hand since stays as it is. A table of s that is not among tables is an
// error, naming it.
func (s Seed) Put(ctx context.Context, c *dynamodb.Client, tables []*dynamodb.CreateTableInput) error {
	for name, items := range s {
		var hash string
		for _, t := range tables {
			if aws.ToString(t.TableName) != name {
				continue
			}
			for _, k := range t.KeySchema {
				if k.KeyType == types.KeyTypeHash {
					hash = aws.ToString(k.AttributeName)
				}
			}
		}
		if hash == "" {
			return fmt.Errorf("seed: the template has no table %q", name)
		}
		for _, item := range items {
			_, err := c.PutItem(ctx, &dynamodb.PutItemInput{
				TableName: aws.String(name), Item: item,
				ConditionExpression:      aws.String("attribute_not_exists(#k)"),
				ExpressionAttributeNames: map[string]string{"#k": hash},
			})
			if _, held := errors.AsType[*types.ConditionalCheckFailedException](err); err != nil && !held {
				return fmt.Errorf("seed %s: %w", name, err)
			}
		}
	}
	return nil
}

// itemOf reads an item in DynamoDB JSON, the wire form of the DynamoDB API
// ("Data type descriptors" in the DynamoDB developer guide: S, N, B, BOOL,
// NULL, M, L, SS, NS, BS).
func itemOf(raw map[string]json.RawMessage) (map[string]types.AttributeValue, error) {
	item := map[string]types.AttributeValue{}
	for k, v := range raw {
		av, err := attributeOf(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %s: %w", k, err)
		}
		item[k] = av
	}
	return item, nil
}

func attributeOf(raw json.RawMessage) (types.AttributeValue, error) {
	var typed map[string]json.RawMessage
	if err := json.Unmarshal(raw, &typed); err != nil || len(typed) != 1 {
		return nil, fmt.Errorf("%s is not one {\"<type>\": value}", raw)
	}
	for typ, v := range typed {
		var err error
		switch typ {
		case "S":
			var s string
			err = json.Unmarshal(v, &s)
			return &types.AttributeValueMemberS{Value: s}, err
		case "N":
			var n string
			if err = json.Unmarshal(v, &n); err == nil {
				_, err = strconv.ParseFloat(n, 64)
			}
			return &types.AttributeValueMemberN{Value: n}, err
		case "B":
			var b []byte // encoding/json reads base64, as the wire form has it
			err = json.Unmarshal(v, &b)
			return &types.AttributeValueMemberB{Value: b}, err
		case "BOOL":
			var b bool
			err = json.Unmarshal(v, &b)
			return &types.AttributeValueMemberBOOL{Value: b}, err
		case "NULL":
			return &types.AttributeValueMemberNULL{Value: true}, nil
		case "SS", "NS":
			var ss []string
			err = json.Unmarshal(v, &ss)
			if typ == "SS" {
				return &types.AttributeValueMemberSS{Value: ss}, err
			}
			return &types.AttributeValueMemberNS{Value: ss}, err
		case "BS":
			var bs []string
			err = json.Unmarshal(v, &bs)
			out := make([][]byte, len(bs))
			for i, b := range bs {
				if out[i], err = base64.StdEncoding.DecodeString(b); err != nil {
					break
				}
			}
			return &types.AttributeValueMemberBS{Value: out}, err
		case "M":
			var m map[string]json.RawMessage
			if err = json.Unmarshal(v, &m); err != nil {
				return nil, err
			}
			item, err := itemOf(m)
			return &types.AttributeValueMemberM{Value: item}, err
		case "L":
			var l []json.RawMessage
			if err = json.Unmarshal(v, &l); err != nil {
				return nil, err
			}
			out := make([]types.AttributeValue, len(l))
			for i, e := range l {
				if out[i], err = attributeOf(e); err != nil {
					return nil, err
				}
			}
			return &types.AttributeValueMemberL{Value: out}, nil
		default:
			return nil, fmt.Errorf("unknown type %q", typ)
		}
	}
	return nil, nil
}
