package preflight.rules.script_credential_test

import data.preflight.rules.script_credential

facts(s) := {"scripts": [{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "stmts": [object.union({"id": 0, "parent": -1, "end": 0, "line": 4, "kind": "call", "words": [], "literals": [], "assigns": []}, s)]}]}

test_refuses_aws_configure_set_a_key if {
	count(script_credential.deny) == 1 with input as facts({"words": ["aws", "configure", "set", "aws_access_key_id", "$K"]})
}

test_refuses_sts_assume_role if {
	count(script_credential.deny) == 1 with input as facts({"words": ["aws", "sts", "assume-role", "--role-arn", "$R"]})
}

test_refuses_a_profile_file if {
	count(script_credential.deny) == 1 with input as facts({"words": ["printf", "[ci]"], "literals": ["printf", "[ci]", "~/.aws/config"]})
}

test_refuses_setting_a_key if {
	count(script_credential.deny) == 1 with input as facts({"assigns": [{"name": "AWS_SECRET_ACCESS_KEY", "value": "$S"}]})
}

test_passes_aws_configure_set_the_region if {
	count(script_credential.deny) == 0 with input as facts({"words": ["aws", "configure", "set", "region", "eu-west-1"], "literals": ["aws", "configure", "set", "region", "eu-west-1"]})
}

test_passes_sts_get_caller_identity if {
	count(script_credential.deny) == 0 with input as facts({"words": ["aws", "sts", "get-caller-identity"]})
}
