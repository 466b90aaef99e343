package preflight.rules.stateful_replaced_test

import data.preflight.rules.stateful_replaced

table(props) := {"type": "AWS::DynamoDB::Table", "line": 12, "properties": props}

key := [{"AttributeName": "id", "KeyType": "HASH"}]

reference := {"environments": {"prod": {"PlantsTable": {"type": "AWS::DynamoDB::Table", "properties": {
	"TableName": null, "ImportSourceSpecification": null, "KeySchema": key, "LocalSecondaryIndexes": null,
	"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}],
}}}}}

stack(resources) := {"stateful": reference, "stacks": [{"variant": "prod", "file": "template.yaml", "resources": resources}]}

the_table := {"KeySchema": key, "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}]}

msgs(resources) := m if {
	m := {f.msg | some f in stateful_replaced.deny} with input as stack(resources)
}

test_refuses_a_key_schema_change if {
	some f in stateful_replaced.deny with input as stack({"PlantsTable": table(object.union(the_table, {"KeySchema": [{"AttributeName": "plantId", "KeyType": "HASH"}]}))})
	f.line == 12
	f.msg == `PlantsTable [prod]: KeySchema changes ([{"AttributeName":"id","KeyType":"HASH"}] to [{"AttributeName":"plantId","KeyType":"HASH"}]); CloudFormation replaces the table: a new, empty table, which the API then serves`
	contains(f.fix, "kind replacement, what PlantsTable")
}

test_refuses_a_name if {
	some m in msgs({"PlantsTable": table(object.union(the_table, {"TableName": "plants"}))})
	contains(m, `TableName changes (null to "plants")`)
}

test_refuses_an_edited_attribute if {
	some m in msgs({"PlantsTable": table(object.union(the_table, {"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}]}))})
	contains(m, `AttributeDefinitions changes ({"AttributeName":"id","AttributeType":"N"} to {"AttributeName":"id","AttributeType":"S"})`)
}

test_refuses_a_rename if {
	some m in msgs({"PlantStoreTable": table(the_table)})
	contains(m, "PlantsTable [prod]: the AWS::DynamoDB::Table is gone from the stack (renamed to PlantStoreTable?)")
	stateful_replaced.replaced == {["prod", "PlantsTable"]} with input as stack({"PlantStoreTable": table(the_table)})
}

test_refuses_a_type_change if {
	some m in msgs({"PlantsTable": {"type": "AWS::Logs::LogGroup", "line": 1, "properties": {}}})
	contains(m, "changes type from AWS::DynamoDB::Table to AWS::Logs::LogGroup")
}

test_refuses_no_reference if {
	some f in stateful_replaced.deny with input as {"stateful": {"environments": {}}, "stacks": [{"variant": "dev", "file": "template.yaml", "resources": {}}]}
	f.file == "tools/preflight/testdata/stateful.json"
	f.msg == "holds no reference for the dev stack"
}

test_refuses_a_new_table_unwatched if {
	some m in msgs({"PlantsTable": table(the_table), "Orders": table(the_table)})
	contains(m, "Orders [prod]: is a AWS::DynamoDB::Table that tools/preflight/testdata/stateful.json does not hold")
	count(stateful_replaced.replaced) == 0 with input as stack({"PlantsTable": table(the_table), "Orders": table(the_table)})
}

test_refuses_a_removed_schema_attribute if {
	pool := {"type": "AWS::Cognito::UserPool", "properties": {"AliasAttributes": null, "UsernameAttributes": null, "UsernameConfiguration": null, "Schema": [{"Name": "email"}]}}
	count(stateful_replaced.deny) == 1 with input as {"stateful": {"environments": {"prod": {"Pool": pool}}}, "stacks": [{"variant": "prod", "file": "template.yaml", "resources": {"Pool": {"type": "AWS::Cognito::UserPool", "line": 3, "properties": {}}}}]}
}

test_passes_the_reference if {
	count(stateful_replaced.deny) == 0 with input as stack({"PlantsTable": table(the_table)})
}

test_passes_an_added_attribute if {
	count(stateful_replaced.deny) == 0 with input as stack({"PlantsTable": table(object.union(the_table, {"AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "N"}, {"AttributeName": "name", "AttributeType": "S"}]}))})
}

test_passes_edge_unreferenced if {
	count(stateful_replaced.deny) == 0 with input as {"stateful": {"environments": {}}, "stacks": [{"variant": "edge", "file": "template.yaml", "resources": {}}]}
}

test_passes_its_snapshot if {
	stateful_replaced.snapshot == {"prod": reference.environments.prod} with input as stack({"PlantsTable": table(the_table)})
}
