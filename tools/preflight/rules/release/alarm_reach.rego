# METADATA
# title: An alarm's threshold is within reach of its metric
# related_resources:
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/api-gateway-metrics-and-dimensions.html
#   - ref: https://docs.aws.amazon.com/AmazonCloudWatch/latest/monitoring/cloudwatch_concepts.html#Statistic
#   - ref: https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html
# custom:
#   id: PS-REL-003
#   danger: an alarm whose threshold its metric and statistic can never cross (5XXError's Average is a rate of at most 1, a Percent above 100, a count above what the account's quotas let through in a period) never pages anyone and never rolls a release back.
#   fix: compare the statistic with a value it can take (a count with Sum, a rate (0 to 1) with Average, a percentage up to 100)
package preflight.rules.alarm_reach

import data.preflight.lib.stacks

# The most a period of a metric can count, at the account's default
# quotas: API Gateway lets through 10,000 requests a second plus a burst of
# 5,000 (API Gateway quotas); Lambda runs at most 1,000 functions at once
# (its default concurrency), each at least 1 ms.
counts := {
	"AWS/ApiGateway": {"Count", "4XXError", "5XXError"},
	"AWS/Lambda": {"Invocations", "Errors", "Throttles"},
}

most_in("AWS/ApiGateway", period) := (10000 * period) + 5000

most_in("AWS/Lambda", period) := (1000 * 1000) * period

# API Gateway: "The Average statistic represents the 5XXError error rate":
# any statistic but Sum and SampleCount of an error metric is a rate.
rate(a) if {
	a.Namespace == "AWS/ApiGateway"
	a.MetricName in {"4XXError", "5XXError"}
	not a.Statistic in {"Sum", "SampleCount"}
}

# range is [least, most] the alarm's statistic can take, what it is, and
# the property that puts it out of reach.
range(a) := [0, 1, sprintf("%s's %s is a rate between 0 and 1", [a.MetricName, statistic(a)]), stat_key(a)] if {
	rate(a)
} else := [0, 100, sprintf("%s is a percentage", [a.MetricName]), "Threshold"] if {
	a.Unit == "Percent"
} else := [0, most, sprintf("%s's Sum over %v s cannot pass %v at the account's default quotas", [a.MetricName, a.Period, most]), "Threshold"] if {
	a.MetricName in counts[a.Namespace]
	a.Statistic in {"Sum", "SampleCount"}
	most := most_in(a.Namespace, stacks.number(a.Period))
}

statistic(a) := object.get(a, "Statistic", object.get(a, "ExtendedStatistic", "statistic"))

stat_key(a) := "Statistic" if {
	a.Statistic
} else := "ExtendedStatistic"

out_of_reach("GreaterThanThreshold", t, [_, most, _, _]) if t >= most

out_of_reach("GreaterThanOrEqualToThreshold", t, [_, most, _, _]) if t > most

out_of_reach("LessThanThreshold", t, [least, _, _, _]) if t <= least

out_of_reach("LessThanOrEqualToThreshold", t, [least, _, _, _]) if t < least

deny contains {"file": s.file, "line": stacks.prop_line(s, r, reach[3]), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::CloudWatch::Alarm"
	a := r.properties
	t := stacks.number(a.Threshold)
	reach := range(a)
	out_of_reach(a.ComparisonOperator, t, reach)
	msg := sprintf("%s: %s %v can never be met (%s): the alarm never fires, so nobody is paged and no release rolls back on it", [id, a.ComparisonOperator, t, reach[2]])
}
