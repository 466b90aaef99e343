package preflight.rules.reach_test

import data.preflight.rules.reach

role(variant) := {"name": sprintf("%s CloudFormationExecutionRole", [variant]), "variant": variant, "id": "CloudFormationExecutionRole", "file": "pipeline/roles.yaml", "statements": [{"Sid": "Queues", "Effect": "Allow", "Action": "sqs:*", "Resource": "*"}], "unknown_services": []}

stack(variant) := {"variant": variant, "probe": false, "file": "pipeline/roles.yaml", "resources": {"CloudFormationExecutionRole": {"line": 240}}}

send(variant, other, when) := {"subject": sprintf("%s CloudFormationExecutionRole", [variant]), "action": "sqs:SendMessage", "level": "Write", "target": sprintf("other-env:plant-store-%s:new:queue", [other]), "arn": sprintf("arn:aws:sqs:eu-west-1:123456789012:plant-store-%s-NewQueueName", [other]), "when": when}

facts(reach, allowlist) := {
	"access": {"variants": ["dev", "prod"], "subjects": [role("dev"), role("prod")], "reach": reach, "errors": []},
	"allowlist": allowlist, "stacks": [stack("dev"), stack("prod")],
}

test_refuses_a_write_outside_in_one_line_for_every_variant if {
	fs := reach.deny with input as facts([send("dev", "prod", ""), send("prod", "dev", "")], [])
	count(fs) == 1
	some f in fs
	f.file == "pipeline/roles.yaml"
	f.line == 240
	f.msg == "CloudFormationExecutionRole (dev, prod): reaches beyond its own stacks: sqs (1, first sqs:SendMessage on other-env:plant-store-prod:new:queue (arn:aws:sqs:eu-west-1:123456789012:plant-store-prod-NewQueueName))"
}

test_refuses_a_write_its_condition_hid if {
	some f in reach.deny with input as facts([send("dev", "prod", "aws:RequestedRegion=eu-west-1")], [])
	endswith(f.msg, "plant-store-prod-NewQueueName) when aws:RequestedRegion=eu-west-1)")
}

test_refuses_notaction if {
	r := object.union(role("dev"), {"statements": [{"Sid": "AllBut", "Effect": "Allow", "NotAction": "iam:*", "Resource": "*"}]})
	some f in reach.deny with input as {"access": {"variants": ["dev"], "subjects": [r], "reach": [], "errors": []}}
	f.msg == "CloudFormationExecutionRole (dev): statement AllBut allows NotAction, every action but some"
}

test_refuses_a_stale_entry if {
	some f in reach.deny with input as facts([], [{"kind": "reach", "what": "dev CloudFormationExecutionRole sqs", "reason": "queues are named by SQS"}])
	f.file == "tools/preflight/allowlist.yaml"
	startswith(f.msg, "reach \"dev CloudFormationExecutionRole sqs\": is stale")
}

test_passes_reading_outside if {
	read := object.union(send("dev", "prod", ""), {"action": "sqs:GetQueueAttributes", "level": "Read"})
	count(reach.deny) == 0 with input as facts([read], [])
}

test_passes_an_acknowledged_reach if {
	count(reach.deny) == 0 with input as facts([send("dev", "prod", "")], [{"kind": "reach", "what": "dev CloudFormationExecutionRole sqs", "reason": "queues are named by SQS"}])
}
