// Package dynamo is the plant.Store on Amazon DynamoDB. A create is one
// conditional PutItem; the SDK's errors are translated here and nowhere else.
package dynamo

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/plantstore/plantstore/internal/plant"
)

// API is the part of *dynamodb.Client the store uses.
type API interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
}

// Store keeps plants in one DynamoDB table with partition key id (N).
type Store struct {
	api   API
	table string
	now   func() time.Time
}

var _ plant.Store = (*Store)(nil)

// New returns a store on table. Create the client once per process.
func New(api API, table string, now func() time.Time) *Store {
	return &Store{api: api, table: table, now: now}
}

// item is the table's layout (docs/design.md, "Data").
type item struct {
	ID        int64   `dynamodbav:"id"`
	Name      string  `dynamodbav:"name"`
	Tag       *string `dynamodbav:"tag,omitempty"`
	CreatedAt string  `dynamodbav:"createdAt"`
}

var condition = aws.String("attribute_not_exists(id)")

// Create implements plant.Store: one PutItem that succeeds only for a new id.
// When the id exists, the old item that DynamoDB returns with the failed
// condition decides between replay and conflict; a server that returns none
// gets one strongly consistent GetItem. There is no read before the write.
func (s *Store) Create(ctx context.Context, p plant.NewPlant) (bool, error) {
	av, err := attributevalue.MarshalMap(item{ID: p.ID, Name: p.Name, Tag: p.Tag, CreatedAt: s.now().UTC().Format(time.RFC3339)})
	if err != nil {
		return false, fmt.Errorf("marshal plant %d: %w", p.ID, err)
	}
	_, err = s.api.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           &s.table,
		Item:                                av,
		ConditionExpression:                 condition,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	}, retryConflicts)
	if err == nil {
		return true, nil
	}
	ccf, ok := errors.AsType[*types.ConditionalCheckFailedException](err)
	if !ok {
		return false, fmt.Errorf("put plant %d: %w", p.ID, translate(err))
	}
	var stored plant.Plant
	if len(ccf.Item) > 0 {
		stored, err = decode(ccf.Item)
	} else {
		stored, err = s.Get(ctx, p.ID)
	}
	if err != nil {
		return false, fmt.Errorf("read existing plant %d: %w", p.ID, err)
	}
	if !stored.Same(p.Plant()) {
		return false, fmt.Errorf("put plant %d: %w", p.ID, plant.ErrExists)
	}
	return false, nil
}

// Get returns the plant stored under id (a strongly consistent read), or
// plant.ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (plant.Plant, error) {
	out, err := s.api.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      &s.table,
		Key:            map[string]types.AttributeValue{"id": &types.AttributeValueMemberN{Value: strconv.FormatInt(id, 10)}},
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return plant.Plant{}, fmt.Errorf("get plant %d: %w", id, translate(err))
	}
	if len(out.Item) == 0 {
		return plant.Plant{}, fmt.Errorf("get plant %d: %w", id, plant.ErrNotFound)
	}
	return decode(out.Item)
}

func decode(av map[string]types.AttributeValue) (plant.Plant, error) {
	_, p, err := DecodeItem(av)
	return p, err
}

// DynamoDB's error documentation says which faults are worth retrying ("OK
// to retry? Yes") and that every 5xx is a problem on the service's side:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Programming.Errors.html#Programming.Errors.MessagesAndCodes
// A PutItem on an item that a TransactWriteItems is changing fails with
// TransactionConflictException until that transaction ends:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-conflict-handling
//
// The SDK's standard retryer already retries 500, 502, 503, 504 and the
// throttling codes (retry.DefaultRetryables); it does not list
// TransactionConflictException, a 400. retryConflicts adds it to whatever
// retryer the client has, for the PutItem alone, so that the SDK (its
// backoff, its attempt limit and its retry quota) retries it: the store has
// no retry loop of its own. A retried conditional put is safe: a write that
// did happen comes back as a replay.
func retryConflicts(o *dynamodb.Options) {
	o.Retryer = retry.AddWithErrorCodes(o.Retryer, "TransactionConflictException")
}

// transientCodes are DynamoDB's error codes for a fault that passes: the
// throttling codes the SDK knows (retry.DefaultThrottleErrorCodes:
// ThrottlingException, ProvisionedThroughputExceededException,
// RequestLimitExceeded, ...) and these. Codes that no retry mends, such as
// ResourceNotFoundException (a missing table: a configuration fault),
// ValidationException or AccessDeniedException, are not among them.
var transientCodes = map[string]bool{
	"InternalServerError":          true, // 500
	"ServiceUnavailable":           true, // 503
	"TransactionConflictException": true, // 400, a transaction in flight on the item
}

// translate marks what the SDK returns after its retries when the fault is
// the store's and may pass: throttling, a transaction in flight on the item,
// DynamoDB's own 5xx, a server that cannot be reached, an exhausted retry
// quota, a request out of time. They become plant.ErrUnavailable (joined
// with the cause, for the log): a 503 with Retry-After for the client,
// counted as StoreUnavailable and not as a failure. Everything else stays as
// it is, a 500 for the client.
func translate(err error) error {
	if unavailable(err) {
		return errors.Join(plant.ErrUnavailable, err)
	}
	return err
}

func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	if _, ok := errors.AsType[*smithyhttp.RequestSendError](err); ok {
		return true
	}
	if _, ok := errors.AsType[*ratelimit.QuotaExceededError](err); ok {
		return true
	}
	if re, ok := errors.AsType[*smithyhttp.ResponseError](err); ok && re.HTTPStatusCode()/100 == 5 {
		return true
	}
	if ae, ok := errors.AsType[smithy.APIError](err); ok {
		_, throttle := retry.DefaultThrottleErrorCodes[ae.ErrorCode()]
		return throttle || transientCodes[ae.ErrorCode()]
	}
	return false
}

// DecodeItem reads the id and the plant of a table item, for tools that
// scan the table.
func DecodeItem(av map[string]types.AttributeValue) (int64, plant.Plant, error) {
	var it item
	if err := attributevalue.UnmarshalMap(av, &it); err != nil {
		return 0, plant.Plant{}, fmt.Errorf("unmarshal plant: %w", err)
	}
	return it.ID, plant.Plant{Name: it.Name, Tag: it.Tag}, nil
}
