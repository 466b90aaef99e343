package preflight.rules.reviewed_access_test

import data.preflight.rules.reviewed_access

access(granted, reviewed) := {"access": {"file": "tools/preflight/testdata/access.txt", "granted": granted, "reviewed": reviewed}}

reviewed := ["dev CreatePlantRole dynamodb:GetItem PlantsTable", "dev CreatePlantRole dynamodb:PutItem PlantsTable"]

test_refuses_new_access if {
	some f in reviewed_access.deny with input as access(
		array.concat(reviewed, [
			"dev PermissionsBoundary secretsmanager:GetSecretValue *",
			"dev PermissionsBoundary secretsmanager:ListSecrets *",
			"dev CreatePlantRole dynamodb:DeleteItem PlantsTable",
		]),
		reviewed,
	)
	f.file == "tools/preflight/testdata/access.txt"
	f.msg == "new access, which no reviewer has seen: dev CreatePlantRole: dynamodb (1, first dynamodb:DeleteItem on PlantsTable); dev PermissionsBoundary: secretsmanager (2, first secretsmanager:GetSecretValue on *)"
}

test_refuses_access_gone_but_in_the_snapshot if {
	some f in reviewed_access.deny with input as access([reviewed[0]], reviewed)
	f.msg == "access no longer granted is still in the snapshot: dev CreatePlantRole: dynamodb (1, first dynamodb:PutItem on PlantsTable)"
}

test_passes_the_reviewed_access if {
	count(reviewed_access.deny) == 0 with input as access(reviewed, reviewed)
}

test_passes_what_reach_refuses if {
	count(reviewed_access.deny) == 0 with input as {"access": {
		"file": "tools/preflight/testdata/access.txt", "granted": array.concat(reviewed, ["dev CreatePlantRole sqs:SendMessage this:new:queue", "dev CreatePlantRole sqs:SendMessage other-env:plant-store-prod:new:queue"]), "reviewed": reviewed,
		"reach": [{"subject": "dev CreatePlantRole", "action": "sqs:SendMessage", "level": "Write", "target": "other-env:plant-store-prod:new:queue", "arn": "arn:aws:sqs:eu-west-1:123456789012:plant-store-prod-NewQueueName", "when": ""}],
		"subjects": [{"name": "dev CreatePlantRole", "variant": "dev", "id": "CreatePlantRole", "file": "template.yaml", "statements": [], "unknown_services": []}],
	}}
}
