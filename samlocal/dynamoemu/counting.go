package dynamoemu

import (
	"context"
	"sync"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ItemAPI is the part of the DynamoDB client that a one-item store uses.
type ItemAPI interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Counting is an ItemAPI that counts what a store asks of the server: the
// calls, and the capacity units each one consumed (asked for with
// ReturnConsumedCapacity TOTAL, which the store itself never sets).
// Plant Store's store tests and make bench's cost row read it.
type Counting struct {
	ItemAPI

	mu                    sync.Mutex
	puts, gets            int
	writeUnits, readUnits float64
}

// Counts returns the calls and capacity units so far.
func (c *Counting) Counts() (puts, gets int, writeUnits, readUnits float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.puts, c.gets, c.writeUnits, c.readUnits
}

func (c *Counting) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.ItemAPI.PutItem(ctx, in, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	if out != nil {
		c.writeUnits += units(out.ConsumedCapacity, func(cc *types.ConsumedCapacity) *float64 { return cc.WriteCapacityUnits })
	}
	return out, err
}

func (c *Counting) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.ItemAPI.GetItem(ctx, in, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	if out != nil {
		c.readUnits += units(out.ConsumedCapacity, func(cc *types.ConsumedCapacity) *float64 { return cc.ReadCapacityUnits })
	}
	return out, err
}

// units is the read or write figure of cc, or its total where the server
// gives only that.
func units(cc *types.ConsumedCapacity, specific func(*types.ConsumedCapacity) *float64) float64 {
	switch {
	case cc == nil:
		return 0
	case specific(cc) != nil:
		return *specific(cc)
	case cc.CapacityUnits != nil:
		return *cc.CapacityUnits
	}
	return 0
}
