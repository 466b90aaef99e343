# METADATA
# title: An alarm on a falling metric treats missing data as breaching
# related_resources:
#   - ref: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/alarms-and-missing-data.html
# custom:
#   id: PS-REL-005
#   danger: an alarm that fires when a metric falls below its threshold (requests, successes) but treats missing data as fine (notBreaching, ignore) or waits for it (missing, the default) never fires when the service stops altogether, because a stopped service publishes no data at all.
#   fix: set TreatMissingData breaching on every LessThan alarm, or fill the gap in a metric math expression (FILL)
package preflight.rules.alarm_missing_data

import data.preflight.lib.stacks

falling := {"LessThanThreshold", "LessThanOrEqualToThreshold", "LessThanLowerThreshold"}

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "ComparisonOperator"), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::CloudWatch::Alarm"
	r.properties.ComparisonOperator in falling
	treat := object.get(r.properties, "TreatMissingData", "missing")
	treat != "breaching"
	not filled(r.properties)
	msg := sprintf("%s: fires when %s falls %s %v but TreatMissingData is %s: a service that stops sends no data at all, and the alarm never fires on it", [id, metric(r.properties), r.properties.ComparisonOperator, object.get(r.properties, "Threshold", "its band"), treat])
}

filled(a) if {
	some m in a.Metrics
	contains(upper(object.get(m, "Expression", "")), "FILL(")
}

metric(a) := a.MetricName if {
	a.MetricName
} else := "its expression"
