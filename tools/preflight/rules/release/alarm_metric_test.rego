package preflight.rules.alarm_metric_test

import data.preflight.rules.alarm_metric

fn := {"type": "AWS::Lambda::Function", "ref": "s-Fn-X", "properties": {"Environment": {"Variables": {"METRICS_NAMESPACE": "App/s"}}}}

alias := {"type": "AWS::Lambda::Alias", "properties": {"FunctionName": "s-Fn-X", "Name": "live"}}

api := {"type": "AWS::ApiGateway::RestApi", "properties": {"Name": "s-plants"}}

stage := {"type": "AWS::ApiGateway::Stage", "properties": {"StageName": "v1"}}

filter := {"type": "AWS::Logs::MetricFilter", "properties": {"MetricTransformations": [{"MetricNamespace": "Logs/s", "MetricName": "ErrorLogs"}]}}

stack(props) := {"stacks": [{"file": "template.yaml", "variant": "prod", "resources": {
	"Fn": fn, "FnAliaslive": alias, "Api": api, "ApiStage": stage, "Filter": filter,
	"A": {"type": "AWS::CloudWatch::Alarm", "line": 3, "source": "A", "properties": props},
}}]}

lambda(name, dims) := {"Namespace": "AWS/Lambda", "MetricName": name, "Dimensions": dims}

test_passes_the_stack_s_own_metrics if {
	count(alarm_metric.deny) == 0 with input as stack(lambda("Errors", [{"Name": "FunctionName", "Value": "s-Fn-X"}, {"Name": "Resource", "Value": "s-Fn-X:live"}]))
	count(alarm_metric.deny) == 0 with input as stack({"Namespace": "AWS/ApiGateway", "MetricName": "5XXError", "Dimensions": [{"Name": "ApiName", "Value": "s-plants"}, {"Name": "Stage", "Value": "v1"}]})
	count(alarm_metric.deny) == 0 with input as stack({"Namespace": "App/s", "MetricName": "Failures"})
	count(alarm_metric.deny) == 0 with input as stack({"Namespace": "Logs/s", "MetricName": "ErrorLogs"})
}

test_refuses_a_misspelt_metric_or_namespace if {
	count(alarm_metric.deny) == 1 with input as stack(lambda("Error", [{"Name": "FunctionName", "Value": "s-Fn-X"}]))
	count(alarm_metric.deny) == 1 with input as stack({"Namespace": "App/S", "MetricName": "Failures"})
	count(alarm_metric.deny) == 1 with input as stack({"Namespace": "Logs/s", "MetricName": "ErrorLog"})
}

test_refuses_dimensions_that_are_not_the_stack_s if {
	count(alarm_metric.deny) == 1 with input as stack(lambda("Errors", [{"Name": "FunctionName", "Value": "s-Fn-X"}, {"Name": "Resource", "Value": "s-Fn-X:current"}]))
	count(alarm_metric.deny) == 1 with input as stack(lambda("Errors", [{"Name": "FunctionName", "Value": "other"}]))
	count(alarm_metric.deny) == 1 with input as stack({"Namespace": "AWS/ApiGateway", "MetricName": "5XXError", "Dimensions": [{"Name": "ApiName", "Value": "s-plant"}, {"Name": "Stage", "Value": "v1"}]})
	count(alarm_metric.deny) == 1 with input as stack({"Namespace": "AWS/ApiGateway", "MetricName": "5XXError", "Dimensions": [{"Name": "ApiName", "Value": "s-plants"}, {"Name": "Stage", "Value": "prod"}]})
}

test_refuses_a_metric_math_input_nobody_publishes if {
	math := {"Metrics": [{"Id": "e", "Expression": "a/b"}, {"Id": "a", "MetricStat": {"Metric": {"Namespace": "App/s", "MetricName": "X"}}}, {"Id": "b", "MetricStat": {"Metric": {"Namespace": "AWS/Lambda", "MetricName": "Invocation", "Dimensions": [{"Name": "FunctionName", "Value": "s-Fn-X"}]}}}]}
	count(alarm_metric.deny) == 1 with input as stack(math)
}
