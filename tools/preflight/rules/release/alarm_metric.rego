# METADATA
# title: An alarm watches a metric that something publishes
# related_resources:
#   - ref: https://docs.aws.amazon.com/lambda/latest/dg/monitoring-metrics-types.html
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-metrics-and-dimensions.html
#   - ref: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/metrics-dimensions.html
#   - ref: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_concepts.html#Dimension
# custom:
#   id: PS-REL-008
#   danger: an alarm on a metric nobody publishes (a misspelt name or namespace, a function, alias, API, stage or table that is not the stack's) has no data, so with missing data treated as fine it never fires, and neither the pager nor a release's rollback hears of the failures it was written for.
#   fix: name a metric the service documents (or the stack's EMF namespace or metric filter publishes) with dimensions that are the stack's resources as deployed (!Ref the function, ${Function}:live for the alias, the API's Name and stage)
package preflight.rules.alarm_metric

import data.preflight.lib.stacks

# CloudWatch ("Dimensions"): a metric is its namespace, its name and its
# dimensions, each name and value exactly; an alarm on any other
# combination watches nothing. The services publish the names their
# pages list, with these dimensions.
published := {
	"AWS/Lambda": {
		"Invocations", "Errors", "DeadLetterErrors", "DestinationDeliveryFailures", "Throttles", "OversizedRecordCount",
		"ProvisionedConcurrencyInvocations", "ProvisionedConcurrencySpilloverInvocations", "RecursiveInvocationsDropped",
		"Duration", "PostRuntimeExtensionsDuration", "IteratorAge", "OffsetLag", "ConcurrentExecutions",
		"ProvisionedConcurrentExecutions", "ProvisionedConcurrencyUtilization", "UnreservedConcurrentExecutions",
		"ClaimedAccountConcurrency", "AsyncEventsReceived", "AsyncEventAge", "AsyncEventsDropped",
	},
	"AWS/ApiGateway": {"4XXError", "5XXError", "CacheHitCount", "CacheMissCount", "Count", "IntegrationLatency", "Latency", "4xx", "5xx", "DataProcessed"},
	"AWS/DynamoDB": {
		"AccountMaxReads", "AccountMaxTableLevelReads", "AccountMaxTableLevelWrites", "AccountMaxWrites",
		"AccountProvisionedReadCapacityUtilization", "AccountProvisionedWriteCapacityUtilization",
		"AgeOfOldestUnreplicatedRecord", "ConditionalCheckFailedRequests", "ConsumedChangeDataCaptureUnits",
		"ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "FailedToReplicateRecordCount",
		"MaxProvisionedTableReadCapacityUtilization", "MaxProvisionedTableWriteCapacityUtilization",
		"OnDemandMaxReadRequestUnits", "OnDemandMaxWriteRequestUnits", "OnlineIndexConsumedWriteCapacity",
		"OnlineIndexPercentageProgress", "OnlineIndexThrottleEvents", "PendingReplicationCount",
		"ProvisionedReadCapacityUnits", "ProvisionedWriteCapacityUnits", "ReadAccountLimitThrottleEvents",
		"ReadKeyRangeThroughputThrottleEvents", "ReadMaxOnDemandThroughputThrottleEvents",
		"ReadProvisionedThroughputThrottleEvents", "ReadThrottleEvents", "ReplicationLatency", "ReturnedBytes",
		"ReturnedItemCount", "ReturnedRecordsCount", "SuccessfulRequestLatency", "SystemErrors",
		"ThrottledPutRecordCount", "ThrottledRequests", "TimeToLiveDeletedItemCount", "TransactionConflict",
		"UserErrors", "WriteAccountLimitThrottleEvents", "WriteKeyRangeThroughputThrottleEvents",
		"WriteMaxOnDemandThroughputThrottleEvents", "WriteProvisionedThroughputThrottleEvents", "WriteThrottleEvents",
	},
}

dimension_names := {
	"AWS/Lambda": {"FunctionName", "Resource", "ExecutedVersion"},
	"AWS/ApiGateway": {"ApiName", "ApiId", "Stage", "Method", "Resource", "Route"},
	"AWS/DynamoDB": {"TableName", "GlobalSecondaryIndexName", "Operation", "OperationType", "Verb", "ReceivingRegion", "StreamLabel", "DelegatedOperation"},
}

# metrics(a) are the metrics an alarm reads: its own, or each MetricStat
# of its metric math.
metrics(a) := [{"Namespace": a.Namespace, "MetricName": a.MetricName, "Dimensions": object.get(a, "Dimensions", []), "prop": "MetricName"}] if a.MetricName

else := [{"Namespace": m.MetricStat.Metric.Namespace, "MetricName": m.MetricStat.Metric.MetricName, "Dimensions": object.get(m.MetricStat.Metric, "Dimensions", []), "prop": "Metrics"} |
	some m in object.get(a, "Metrics", [])
	m.MetricStat
]

of_type(s, t) := [r | some r in s.resources; r.type == t]

functions(s) := {r.ref | some r in of_type(s, "AWS::Lambda::Function")}

# lambda_resources are what Resource names: a function, one of its
# aliases (function:alias) or a version (function:N).
lambda_resource(s, v) if v in functions(s)

lambda_resource(s, v) if {
	some r in of_type(s, "AWS::Lambda::Alias")
	v == sprintf("%s:%s", [r.properties.FunctionName, r.properties.Name])
}

lambda_resource(s, v) if {
	[f, n] := split(v, ":")
	f in functions(s)
	regex.match(`^[0-9]+$`, n)
}

# wrong(s, m) says what of metric m nothing publishes, if anything.
wrong(s, m) := sprintf("%s publishes no metric %q", [m.Namespace, m.MetricName]) if {
	published[m.Namespace]
	not m.MetricName in published[m.Namespace]
} else := sprintf("%s has no dimension %q", [m.Namespace, d.Name]) if {
	some d in m.Dimensions
	dimension_names[m.Namespace]
	not d.Name in dimension_names[m.Namespace]
} else := "its FunctionName is none of the stack's functions" if {
	m.Namespace == "AWS/Lambda"
	some d in m.Dimensions
	d.Name == "FunctionName"
	not d.Value in functions(s)
} else := "its Resource is none of the stack's functions, aliases (function:alias) or versions" if {
	m.Namespace == "AWS/Lambda"
	some d in m.Dimensions
	d.Name == "Resource"
	not lambda_resource(s, d.Value)
} else := "its ApiName is none of the stack's REST APIs' names" if {
	m.Namespace == "AWS/ApiGateway"
	some d in m.Dimensions
	d.Name == "ApiName"
	not d.Value in {r.properties.Name | some r in of_type(s, "AWS::ApiGateway::RestApi")}
} else := "its Stage is none of the stack's stages" if {
	m.Namespace == "AWS/ApiGateway"
	some d in m.Dimensions
	d.Name == "Stage"
	not d.Value in {r.properties.StageName | some r in array.concat(of_type(s, "AWS::ApiGateway::Stage"), of_type(s, "AWS::ApiGatewayV2::Stage"))}
} else := "its TableName is none of the stack's tables" if {
	m.Namespace == "AWS/DynamoDB"
	some d in m.Dimensions
	d.Name == "TableName"
	not d.Value in {r.ref | some r in of_type(s, "AWS::DynamoDB::Table")}
} else := "no function's *NAMESPACE variable and no metric filter of the stack names its namespace" if {
	not startswith(m.Namespace, "AWS/")
	not m.Namespace in custom_namespaces(s)
} else := "the stack's metric filters of its namespace publish no metric of that name" if {
	not startswith(m.Namespace, "AWS/")
	not m.Namespace in emf_namespaces(s)
	not m.MetricName in {t.MetricName | some r in of_type(s, "AWS::Logs::MetricFilter"); some t in r.properties.MetricTransformations; t.MetricNamespace == m.Namespace}
}

# The stack's own namespaces: a function's environment variable named
# *NAMESPACE (the code publishes there, in EMF), and its metric filters'.
emf_namespaces(s) := {v |
	some r in of_type(s, "AWS::Lambda::Function")
	some k, v in object.get(r.properties, ["Environment", "Variables"], {})
	endswith(k, "NAMESPACE")
}

custom_namespaces(s) := emf_namespaces(s) | {t.MetricNamespace |
	some r in of_type(s, "AWS::Logs::MetricFilter")
	some t in r.properties.MetricTransformations
}

deny := stacks.told(found)

found contains {"variant": s.variant, "file": s.file, "line": stacks.prop_line(s, r, m.prop), "id": id, "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::CloudWatch::Alarm"
	some m in metrics(r.properties)
	why := wrong(s, m)
	msg := sprintf("watches %s %s, which nothing publishes (%s): the alarm has no data and never fires", [namespace(s, m), m.MetricName, why])
}

# namespace names an AWS namespace; a custom one holds each variant's
# stack name, and a finding says it once for all of them.
namespace(_, m) := m.Namespace if startswith(m.Namespace, "AWS/")

else := "the custom namespace's"
