package preflight.rules.long_lived_credential_test

import data.preflight.rules.long_lived_credential

t(resources) := {"templates": {"template.yaml": {"file": "template.yaml", "scalars": [], "resources": resources}}}

test_refuses_a_user if {
	count(long_lived_credential.deny) == 1 with input as t([{"id": "U", "type": "AWS::IAM::User", "line": 3, "properties": {}}])
}

test_refuses_a_policy_on_users if {
	count(long_lived_credential.deny) == 1 with input as t([{"id": "P", "type": "AWS::IAM::Policy", "line": 3, "properties": {"Users": 5}}])
}

test_passes_a_role if {
	count(long_lived_credential.deny) == 0 with input as t([{"id": "R", "type": "AWS::IAM::Role", "line": 3, "properties": {}}])
}
