# METADATA
# title: The stack's logs stay in its account
# related_resources:
#   - ref: https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/CrossAccountSubscriptions.html
# custom:
#   id: PS-EXP-002
#   danger: a subscription filter or an account's subscription policy that sends log events to another account's destination hands every subject, address and request id of the logs to whoever holds it.
#   fix: subscribe a Kinesis or Firehose stream or a function of this account, and share from there on purpose
package preflight.rules.logs_stay

# A destination is an ARN; its fifth field is its account. "A logical
# destination that belongs to a different account, for cross-account
# delivery" (CloudWatch Logs API reference, PutSubscriptionFilter; an
# account-level SUBSCRIPTION_FILTER_POLICY, PutAccountPolicy, the same
# for every log group).
deny contains {"file": s.file, "line": r.line, "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	some dest in destinations(r)
	owner := account(dest)
	owner != s.account
	msg := sprintf("%s: sends log events to %s (%s): every subject, address and request id of the logs leaves the account, to whoever holds that destination", [id, owner_name(owner), dest])
}

destinations(r) := {sprintf("%v", [r.properties.DestinationArn])} if r.type == "AWS::Logs::SubscriptionFilter"

destinations(r) := policy_destinations(sprintf("%v", [r.properties.PolicyDocument])) if {
	r.type == "AWS::Logs::AccountPolicy"
	r.properties.PolicyType == "SUBSCRIPTION_FILTER_POLICY"
}

policy_destinations(doc) := {m[1] | some m in regex.find_all_string_submatch_n(`"DestinationArn"\s*:\s*"([^"]*)"`, doc, -1)} if {
	regex.match(`"DestinationArn"`, doc)
} else := {doc}

account(arn) := parts[4] if {
	parts := split(arn, ":")
	count(parts) > 4
} else := ""

owner_name("") := "another account"

owner_name(a) := sprintf("account %s", [a]) if a != ""
