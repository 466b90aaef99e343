package samtemplate

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/plantstore/plantstore/samlocal/eventfilter"
)

// StreamEvent is a function's DynamoDB event source, as the SAM translator
// makes it an AWS::Lambda::EventSourceMapping (samtranslator/model/
// eventsources/pull.py, PullEventSource.to_cloudformation: the properties
// pass through, SAM adds no defaults of its own), with Lambda's defaults
// for what the template leaves out ("Lambda parameters for Amazon DynamoDB
// event source mappings",
// https://docs.aws.amazon.com/lambda/latest/dg/services-ddb-params.html).
type StreamEvent struct {
	Function string // the function's logical ID
	Event    string // the event's name, or the EventSourceMapping's logical ID
	Table    string // the table's logical ID (Stream: !GetAtt Table.StreamArn)
	// TableName is the table's local name (Table.Name).
	TableName string
	// StartingPosition is TRIM_HORIZON or LATEST (AT_TIMESTAMP is
	// Kinesis's and Kafka's, not DynamoDB's).
	StartingPosition string
	BatchSize        int           // 100 by default, 1 to 10,000
	BatchingWindow   time.Duration // MaximumBatchingWindowInSeconds, 0 by default
	Filters          eventfilter.Criteria
	// ReportBatchItemFailures is FunctionResponseTypes:
	// [ReportBatchItemFailures]: the function may answer which records
	// failed.
	ReportBatchItemFailures bool
	// MaximumRetryAttempts is how often a failed batch is retried; -1 (the
	// default) until its records expire.
	MaximumRetryAttempts int
	// MaximumRecordAge discards a record older than it, 0 (-1 in the
	// template, the default) for never.
	MaximumRecordAge           time.Duration
	BisectBatchOnFunctionError bool
}

// ID names the event in lines: Function/Event.
func (e StreamEvent) ID() string { return e.Function + "/" + e.Event }

// servedEventTypes are the event types something of samlocal serves: Api
// (start-api's gateway), HttpApi (its HTTP APIs) and DynamoDB (the stream
// poller, samlocal/streams).
var servedEventTypes = []string{"Api", "HttpApi", "DynamoDB"}

// EventNotes says in one line each what events of the Go functions fns
// nothing of samlocal serves: every event type but servedEventTypes
// (queues, schedules, buckets, Kinesis streams, ...). invoke runs a
// function on any event it is handed.
func (t *Template) EventNotes(fns []Function) []string {
	var notes []string
	for _, f := range fns {
		events, _ := t.Properties(f.ID)["Events"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(events)) {
			ev, _ := events[name].(map[string]any)
			typ, _ := ev["Type"].(string)
			if slices.Contains(servedEventTypes, typ) {
				continue
			}
			notes = append(notes, fmt.Sprintf("%s: event %s (Type %s) is not served: nothing of samlocal sends it; samlocal invoke %s -e EVENT runs the function on one", f.ID, name, typ, f.ID))
		}
	}
	return notes
}

// StreamEvents reads the DynamoDB event sources of the Go functions fns:
// each DynamoDB event, and each AWS::Lambda::EventSourceMapping whose
// EventSourceArn is a table's stream, on a table of the template. What is
// not served of them is said in one line each (notes): an event left out
// (a stream that is no table's of the template, AT_TIMESTAMP, a tumbling
// window, a filter samlocal cannot match, Enabled: false), or a property
// served otherwise than on AWS (ParallelizationFactor, DestinationConfig).
func (t *Template) StreamEvents(fns []Function) (events []StreamEvent, notes []string, err error) {
	tables, err := t.Tables()
	if err != nil {
		return nil, nil, err
	}
	read := func(fn, name, label string, stream any, props map[string]any) {
		e, warn, err := t.streamEvent(fn, name, stream, props, tables)
		for _, w := range warn {
			notes = append(notes, fmt.Sprintf("%s: %s %s", fn, label, w))
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %s is not served: %v", fn, label, err))
			return
		}
		events = append(events, e)
	}
	ids := FunctionIDs(fns)
	for _, fn := range ids {
		evs, _ := t.Properties(fn)["Events"].(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(evs)) {
			ev, _ := evs[name].(map[string]any)
			if ev["Type"] != "DynamoDB" {
				continue
			}
			props, _ := ev["Properties"].(map[string]any)
			read(fn, name, "event "+name+" (Type DynamoDB)", props["Stream"], props)
		}
	}
	for _, id := range t.Resources("AWS::Lambda::EventSourceMapping") {
		props := t.Map("Resources", id, "Properties")
		if table, attr, ok := GetAttOf(props["EventSourceArn"]); !ok || attr != "StreamArn" || !slices.ContainsFunc(tables, func(tb Table) bool { return tb.ID == table }) {
			notes = append(notes, fmt.Sprintf("%s: AWS::Lambda::EventSourceMapping is not served: its EventSourceArn is no !GetAtt <Table>.StreamArn of a table of this template (samlocal serves DynamoDB streams)", id))
			continue
		}
		fn, err := t.mappedFunction(props["FunctionName"])
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: AWS::Lambda::EventSourceMapping is not served: %v", id, err))
			continue
		}
		if !slices.Contains(ids, fn) {
			continue // a function that is left out says so itself
		}
		read(fn, id, "AWS::Lambda::EventSourceMapping "+id, props["EventSourceArn"], props)
	}
	return events, notes, nil
}

// mappedFunction is the function an EventSourceMapping's FunctionName
// names: !Ref Fn or !GetAtt Fn.Arn, a function of the template.
func (t *Template) mappedFunction(v any) (string, error) {
	fn := RefTo(v)
	if id, attr, ok := GetAttOf(v); ok && attr == "Arn" {
		fn = id
	}
	if !slices.Contains(t.Functions(), fn) {
		return "", fmt.Errorf("its FunctionName is no !Ref or !GetAtt .Arn of a function of this template")
	}
	return fn, nil
}

// streamEvent reads one event source of fn. Its Stream (EventSourceArn)
// must be !GetAtt <Table>.StreamArn of a table of the template: sam local
// resolves no such attribute, so the table is found by the GetAtt's
// logical ID. warn holds what is served otherwise than on AWS; err why
// the event is left out.
func (t *Template) streamEvent(fn, name string, stream any, raw map[string]any, tables []Table) (e StreamEvent, warn []string, err error) {
	e = StreamEvent{Function: fn, Event: name, BatchSize: 100, MaximumRetryAttempts: -1}
	table, attr, ok := GetAttOf(stream)
	i := slices.IndexFunc(tables, func(tb Table) bool { return tb.ID == table })
	if !ok || attr != "StreamArn" || i < 0 {
		return e, nil, fmt.Errorf("its Stream is no !GetAtt <Table>.StreamArn of a table of this template (a stream ARN of a table elsewhere is not there locally)")
	}
	if spec, _ := tables[i].Props["StreamSpecification"].(map[string]any); spec["StreamViewType"] == nil {
		return e, nil, fmt.Errorf("table %s has no StreamSpecification, so no StreamArn", table)
	}
	e.Table, e.TableName = table, tables[i].Name
	props := map[string]any{}
	for k, v := range raw {
		if k == "Stream" || k == "EventSourceArn" || k == "FunctionName" {
			continue
		}
		if props[k], err = t.local().Value(v); err != nil {
			return e, nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	if stringify(props["Enabled"]) == "false" {
		return e, nil, fmt.Errorf("the event's Enabled is false, which pauses polling (the SAM specification's DynamoDB event)")
	}
	switch pos := stringify(props["StartingPosition"]); pos {
	case "TRIM_HORIZON", "LATEST":
		e.StartingPosition = pos
	case "":
		return e, nil, fmt.Errorf("StartingPosition is required (TRIM_HORIZON or LATEST)")
	default:
		return e, nil, fmt.Errorf("StartingPosition %s: DynamoDB streams take TRIM_HORIZON or LATEST (CreateEventSourceMapping: AT_TIMESTAMP is for Kinesis, Kafka and Amazon MQ)", pos)
	}
	number := func(key string, def, lo, hi int) (int, error) {
		v, ok := props[key]
		if !ok {
			return def, nil
		}
		n, err := t.Number(v)
		if err != nil || n != float64(int(n)) || int(n) < lo || int(n) > hi {
			return 0, fmt.Errorf("%s %v: Lambda takes a whole number from %d to %d", key, v, lo, hi)
		}
		return int(n), nil
	}
	if e.BatchSize, err = number("BatchSize", 100, 1, 10000); err != nil {
		return e, nil, err
	}
	window, err := number("MaximumBatchingWindowInSeconds", 0, 0, 300)
	if err != nil {
		return e, nil, err
	}
	e.BatchingWindow = time.Duration(window) * time.Second
	if e.MaximumRetryAttempts, err = number("MaximumRetryAttempts", -1, -1, 10000); err != nil {
		return e, nil, err
	}
	age, err := number("MaximumRecordAgeInSeconds", -1, -1, 604800)
	if err != nil {
		return e, nil, err
	}
	if age >= 0 && age < 60 {
		return e, nil, fmt.Errorf("MaximumRecordAgeInSeconds %d: Lambda takes -1 or 60 to 604800", age)
	}
	if age > 0 {
		e.MaximumRecordAge = time.Duration(age) * time.Second
	}
	e.BisectBatchOnFunctionError = stringify(props["BisectBatchOnFunctionError"]) == "true"
	if tw, err := number("TumblingWindowInSeconds", 0, 0, 900); err != nil || tw > 0 {
		return e, nil, fmt.Errorf("TumblingWindowInSeconds is not served (the function would need the window's state)")
	}
	types, _ := props["FunctionResponseTypes"].([]any)
	for _, typ := range types {
		if typ != "ReportBatchItemFailures" {
			return e, nil, fmt.Errorf("FunctionResponseTypes %v: Lambda takes ReportBatchItemFailures", typ)
		}
		e.ReportBatchItemFailures = true
	}
	if e.Filters, err = filters(props["FilterCriteria"]); err != nil {
		return e, nil, err
	}
	if pf, err := number("ParallelizationFactor", 1, 1, 10); err != nil {
		return e, nil, err
	} else if pf > 1 {
		warn = append(warn, fmt.Sprintf("ParallelizationFactor %d is served as 1: one batch of a shard at a time", pf))
	}
	if props["DestinationConfig"] != nil {
		warn = append(warn, "DestinationConfig is not served: a discarded batch is said on the terminal, and sent nowhere")
	}
	return e, warn, nil
}

// filters reads FilterCriteria: {"Filters": [{"Pattern": "<JSON>"}]}. A
// Pattern is a string of JSON in CloudFormation; one written as a YAML
// map is read as that JSON.
func filters(v any) (eventfilter.Criteria, error) {
	if v == nil {
		return nil, nil
	}
	fc, ok := v.(map[string]any)
	list, isList := fc["Filters"].([]any)
	if !ok || fc["Filters"] != nil && !isList {
		return nil, fmt.Errorf("FilterCriteria has a wrong format: want {Filters: [{Pattern: ...}]}")
	}
	var c eventfilter.Criteria
	for i, f := range list {
		m, _ := f.(map[string]any)
		var text string
		switch p := m["Pattern"].(type) {
		case string:
			text = p
		case map[string]any:
			b, _ := json.Marshal(p)
			text = string(b)
		default:
			return nil, fmt.Errorf("FilterCriteria.Filters[%d] has no Pattern", i)
		}
		p, err := eventfilter.Parse(text)
		if err != nil {
			return nil, fmt.Errorf("FilterCriteria.Filters[%d]: %w", i, err)
		}
		c = append(c, p)
	}
	return c, nil
}

// StreamConsumers lists the functions of events, sorted, once each.
func StreamConsumers(events []StreamEvent) []string {
	var fns []string
	for _, e := range events {
		fns = append(fns, e.Function)
	}
	slices.Sort(fns)
	return slices.Compact(fns)
}
