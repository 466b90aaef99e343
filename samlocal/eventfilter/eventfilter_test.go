package eventfilter

import (
	"strings"
	"testing"
)

// record is a DynamoDB stream record as the function receives it.
const record = `{"awsRegion":"us-east-1","eventID":"e1","eventName":"MODIFY","eventSource":"aws:dynamodb","eventVersion":"1.1",
 "eventSourceARN":"arn:aws:dynamodb:us-east-1:123456789012:table/Products/stream/2026-11-28T14:06:53.226",
 "dynamodb":{"ApproximateCreationDateTime":1795875049.631,"SizeBytes":354,"SequenceNumber":"1100000000017454423009","StreamViewType":"NEW_AND_OLD_IMAGES",
  "Keys":{"sku":{"S":"FERN-1"}},
  "NewImage":{"sku":{"S":"FERN-1"},"category":{"S":"ferns"},"price":{"N":"50"},"poison":{"BOOL":true},"tags":{"SS":["green","shade"]},"note":{"NULL":true},
   "size":{"M":{"code":{"N":"300"}}}},
  "OldImage":{"sku":{"S":"FERN-1"},"category":{"S":"plants"}}}}`

// Each rule of Lambda's filter syntax that samlocal serves, on a stream
// record's metadata (eventName) and on its images' typed values, as the
// examples of "Using event filtering with a DynamoDB event source" and
// "Lambda event filtering" write them.
func TestPatternsMatchAsLambdaFilters(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, pattern string
		want          bool
	}{
		{"eventName equal", `{"eventName":["MODIFY"]}`, true},
		{"eventName equal, another", `{"eventName":["INSERT"]}`, false},
		{"OR in a list", `{"eventName":["INSERT","MODIFY"]}`, true},
		{"AND of two keys", `{"eventName":["MODIFY"],"dynamodb":{"NewImage":{"category":{"S":["ferns"]}}}}`, true},
		{"AND of two keys, one fails", `{"eventName":["REMOVE"],"dynamodb":{"NewImage":{"category":{"S":["ferns"]}}}}`, false},
		{"a key's typed value", `{"dynamodb":{"Keys":{"sku":{"S":["FERN-1"]}}}}`, true},
		{"case counts", `{"dynamodb":{"Keys":{"sku":{"S":["fern-1"]}}}}`, false},
		{"the old image", `{"dynamodb":{"OldImage":{"category":{"S":["plants"]}}}}`, true},
		{"a nested map", `{"dynamodb":{"NewImage":{"size":{"M":{"code":{"N":["300"]}}}}}}`, true},
		{"a boolean", `{"dynamodb":{"NewImage":{"poison":{"BOOL":[true]}}}}`, true},
		{"a boolean, the other", `{"dynamodb":{"NewImage":{"poison":{"BOOL":[false]}}}}`, false},
		{"null", `{"dynamodb":{"NewImage":{"note":{"NULL":[true]}}}}`, true},
		{"a set matches by any element", `{"dynamodb":{"NewImage":{"tags":{"SS":["shade"]}}}}`, true},
		{"prefix", `{"dynamodb":{"Keys":{"sku":{"S":[{"prefix":"FERN-"}]}}}}`, true},
		{"prefix, another", `{"dynamodb":{"Keys":{"sku":{"S":[{"prefix":"MON-"}]}}}}`, false},
		{"prefix of the metadata", `{"eventSourceARN":[{"prefix":"arn:aws:dynamodb:us-east-1:"}]}`, true},
		{"exists", `{"dynamodb":{"NewImage":{"poison":{"BOOL":[{"exists":true}]}}}}`, true},
		{"exists, absent", `{"dynamodb":{"NewImage":{"homemade":{"S":[{"exists":true}]}}}}`, false},
		{"exists false, absent", `{"dynamodb":{"NewImage":{"homemade":{"S":[{"exists":false}]}}}}`, true},
		{"exists false, present", `{"dynamodb":{"NewImage":{"poison":{"BOOL":[{"exists":false}]}}}}`, false},
		{"exists false below a missing image", `{"dynamodb":{"NewerImage":{"poison":{"BOOL":[{"exists":false}]}}}}`, true},
		{"exists on an object is no leaf", `{"dynamodb":{"NewImage":[{"exists":true}]}}`, false},
		{"anything-but", `{"eventName":[{"anything-but":["REMOVE"]}]}`, true},
		{"anything-but, the value", `{"eventName":[{"anything-but":["MODIFY","REMOVE"]}]}`, false},
		{"anything-but of one value", `{"eventName":[{"anything-but":"MODIFY"}]}`, false},
		{"anything-but, absent", `{"missing":[{"anything-but":["x"]}]}`, false},
		{"anything-but on a typed value", `{"dynamodb":{"NewImage":{"category":{"S":[{"anything-but":["plants"]}]}}}}`, true},
		{"empty string", `{"dynamodb":{"NewImage":{"category":{"S":[""]}}}}`, false},
		{"a JSON number", `{"dynamodb":{"SizeBytes":[354]}}`, true},
		{"a number by its text", `{"dynamodb":{"SizeBytes":[354.0]}}`, false},
		{"numeric on a JSON number", `{"dynamodb":{"SizeBytes":[{"numeric":[">",100,"<=",400]}]}}`, true},
		{"numeric, out of range", `{"dynamodb":{"SizeBytes":[{"numeric":["<",100]}]}}`, false},
		{"numeric never on a DynamoDB number", `{"dynamodb":{"NewImage":{"price":{"N":[{"numeric":[">",10]}]}}}}`, false},
		{"a DynamoDB number as its string", `{"dynamodb":{"NewImage":{"price":{"N":["50"]}}}}`, true},
		{"a missing field", `{"userIdentity":{"type":["Service"]}}`, false},
		{"the last of a repeated key", `{"eventName":["INSERT"],"eventName":["MODIFY"]}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := Parse(c.pattern)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Criteria{p}.Match([]byte(record))
			if err != nil || got != c.want {
				t.Errorf("%s: %v, %v; want %v", c.pattern, got, err, c.want)
			}
		})
	}
}

// Filters are ORed; no filter lets every record through.
func TestCriteriaAreAnyOfTheirPatterns(t *testing.T) {
	t.Parallel()
	insert, _ := Parse(`{"eventName":["INSERT"]}`)
	modify, _ := Parse(`{"eventName":["MODIFY"]}`)
	for _, c := range []struct {
		name string
		c    Criteria
		want bool
	}{
		{"none", nil, true},
		{"one that fails", Criteria{insert}, false},
		{"one of two", Criteria{insert, modify}, true},
	} {
		if got, _ := c.c.Match([]byte(record)); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A pattern that is not one samlocal can hold to Lambda's meaning is
// refused, with the reason, so that its mapping is left out rather than
// let through what Lambda would drop.
func TestUnservedPatternsAreRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ pattern, want string }{
		{`not json`, "not JSON"},
		{`["INSERT"]`, "not a JSON object"},
		{`{"eventName":"INSERT"}`, "list of rules"},
		{`{"eventName":[{"suffix":"RT"}]}`, `operator "suffix" is not served`},
		{`{"eventName":[{"equals-ignore-case":"insert"}]}`, `"equals-ignore-case" is not served`},
		{`{"$or":[{"eventName":["INSERT"]}]}`, "not served"},
		{`{"eventName":[{"anything-but":{"prefix":"IN"}}]}`, "anything-but of"},
		{`{"eventName":[{"prefix":{"equals-ignore-case":"in"}}]}`, "prefix of"},
		{`{"dynamodb":{"SizeBytes":[{"numeric":["!=",1]}]}}`, "want an operator"},
		{`{"eventName":[{"exists":"yes"}]}`, "exists takes true or false"},
		{`{"eventName":[{"prefix":"IN","exists":true}]}`, "has 2 operators"},
	} {
		_, err := Parse(c.pattern)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.pattern, err, c.want)
		}
	}
}
