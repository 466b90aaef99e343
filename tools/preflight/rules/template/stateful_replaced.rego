# METADATA
# title: Stateful resources are not replaced unseen
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/using-cfn-updating-stacks-update-behaviors.html
# custom:
#   id: PS-TPL-004
#   danger: a change to a create-only property, a type or a logical id of a table or a user pool makes CloudFormation replace it, and its data is gone.
#   fix: keep the property; if the replacement is meant, acknowledge it in tools/preflight/allowlist.yaml (kind replacement) and regenerate tools/preflight/testdata/stateful.json
package preflight.rules.stateful_replaced

import data.preflight.lib.stacks

# "Replacement: AWS CloudFormation recreates the resource during an update,
# which also generates a new physical ID", and adding or removing such a
# property replaces the resource even when its value does not change; so an
# absent property is recorded as null and compared as such. The registry
# schema's createOnlyProperties (CloudFormation's DescribeType; cfn-lint
# 1.51.0's cfnlint/data/schemas) list them; where the schema lists fewer
# than the documentation, the documentation is taken too, and where a
# service refuses a change the schema lets through, the service's guide.
# A property with a key is a list compared entry by entry (by that field):
# an entry of the reference still there must be unchanged; added entries
# are free, and removed ones too unless kept.
types := {
	# Registry schema: TableName, ImportSourceSpecification. User guide:
	# KeySchema, LocalSecondaryIndexes "Update requires: Replacement";
	# AttributeDefinitions "Replacement if you edit an existing
	# AttributeDefinition" (adding one, for an index, is not).
	"AWS::DynamoDB::Table": {
		"loses": "CloudFormation replaces the table: a new, empty table, which the API then serves",
		"properties": [{"name": "TableName"}, {"name": "ImportSourceSpecification"}, {"name": "KeySchema"}, {"name": "LocalSecondaryIndexes"}, {"name": "AttributeDefinitions", "key": "AttributeName"}],
	},
	# Amazon Cognito developer guide, "Updating user pool and app client
	# configuration", settings you can't change: sign-in options, case
	# sensitivity, and existing schema attributes ("you can add new schema
	# attributes but you cannot modify or delete an existing schema
	# attribute").
	"AWS::Cognito::UserPool": {
		"loses": "Amazon Cognito cannot change it on an existing pool: only a new pool has it, and a new pool has none of the users or app clients",
		"properties": [{"name": "AliasAttributes"}, {"name": "UsernameAttributes"}, {"name": "UsernameConfiguration"}, {"name": "Schema", "key": "Name", "kept": true}],
	},
	# Registry schema: GenerateSecret, UserPoolId.
	"AWS::Cognito::UserPoolClient": {
		"loses": "CloudFormation replaces the app client: a new client id and secret, and every caller's credentials stop working",
		"properties": [{"name": "UserPoolId"}, {"name": "GenerateSecret"}],
	},
	# Registry schema: LogGroupName.
	"AWS::Logs::LogGroup": {
		"loses": "CloudFormation replaces the log group: the old one, with its log events, is deleted",
		"properties": [{"name": "LogGroupName"}],
	},
}

regenerate := "`UPDATE_PREFLIGHT=1 go test ./tools/preflight -run TestStatefulReference`"

# deployed are the app stacks of samconfig.toml's environments; the edge
# variant is make lint's, which no one deploys as such.
deployed contains s if {
	some s in input.stacks
	s.file == "template.yaml"
	not s.probe
	s.variant != "edge"
}

# snapshot is what the reference would hold for the stacks as they stand,
# per environment (what regeneration writes).
snapshot := {s.variant: resources(s) | some s in deployed}

# resources are the stateful resources of a stack with the values, as
# resolved, of the properties they cannot change in place.
resources(s) := {id: {"type": r.type, "properties": {fp.name: object.get(object.get(r, "properties", {}), fp.name, null) | some fp in types[r.type].properties}} |
	some id, r in s.resources
	types[r.type]
}

# changes are what differs from the reference, per stack: replaced says
# whether the change replaces or removes what the reference holds.
changes contains {"variant": s.variant, "file": s.file, "line": line(s, id), "id": id, "replaced": true, "msg": sprintf("the %s is gone from the stack%s: CloudFormation deletes it (or, with DeletionPolicy Retain, leaves it outside the stack), and a renamed logical id is a delete and a create: %s", [w.type, renamed(s, w), types[w.type].loses])} if {
	some s in deployed
	some id, w in input.stateful.environments[s.variant]
	not resources(s)[id]
}

changes contains {"variant": s.variant, "file": s.file, "line": line(s, id), "id": id, "replaced": true, "msg": sprintf("changes type from %s to %s: CloudFormation replaces it", [w.type, g.type])} if {
	some s in deployed
	some id, w in input.stateful.environments[s.variant]
	g := resources(s)[id]
	g.type != w.type
}

changes contains {"variant": s.variant, "file": s.file, "line": line(s, id), "id": id, "replaced": true, "msg": sprintf("%s changes (%s to %s); %s", [fp.name, stacks.short(d[0], 100), stacks.short(d[1], 100), types[w.type].loses])} if {
	some s in deployed
	some id, w in input.stateful.environments[s.variant]
	g := resources(s)[id]
	g.type == w.type
	some fp in types[w.type].properties
	d := differs(fp, object.get(w.properties, fp.name, null), g.properties[fp.name])
}

changes contains {"variant": s.variant, "file": s.file, "line": line(s, id), "id": id, "replaced": false, "msg": sprintf("is a %s that tools/preflight/testdata/stateful.json does not hold: its create-only properties go unwatched", [g.type])} if {
	some s in deployed
	input.stateful.environments[s.variant]
	some id, g in resources(s)
	not input.stateful.environments[s.variant][id]
}

# replaced are the replacements and removals, [environment, logical id]:
# regeneration takes them only when the allowlist acknowledges them.
replaced contains [c.variant, c.id] if {
	some c in changes
	c.replaced
}

found contains object.union(object.remove(c, ["replaced"]), {"fix": fix(c)}) if some c in changes

deny := stacks.told(found) | {{"file": "tools/preflight/testdata/stateful.json", "line": 0, "msg": sprintf("holds no reference for the %s stack", [s.variant]), "fix": sprintf("regenerate it with %s", [regenerate])} |
	some s in deployed
	not input.stateful.environments[s.variant]
}

line(s, id) := object.get(s.resources, [id, "line"], 0)

fix(c) := sprintf("revert, or acknowledge in tools/preflight/allowlist.yaml (kind replacement, what %s, a reason) and regenerate the reference with %s", [c.id, regenerate]) if c.replaced

fix(c) := sprintf("regenerate the reference with %s (a new resource needs no acknowledgement)", [regenerate]) if not c.replaced

renamed(s, w) := sprintf(" (renamed to %s?)", [concat(", ", sorted)]) if {
	sorted := sort([id |
		some id, g in resources(s)
		g.type == w.type
		not input.stateful.environments[s.variant][id]
	])
	count(sorted) > 0
} else := ""

# differs compares a property's values by its rule: [was, now] of the
# first part that differs.
differs(fp, was, now) := [was, now] if {
	not fp.key
	was != now
}

differs(fp, was, now) := [b[k], object.get(a, k, null)] if {
	fp.key
	b := by_key(was, fp.key)
	a := by_key(now, fp.key)
	k := min({k |
		some k, e in b
		some c in [object.get(a, k, null) != null, object.get(fp, "kept", false)]
		c
		e != object.get(a, k, null)
	})
}

by_key(v, key) := {k: [e | some e in entries; sprintf("%v", [e[key]]) == k][0] |
	entries := [e | some e in stacks.as_list(v); is_object(e)]
	some e in entries
	k := sprintf("%v", [e[key]])
}
