package preflight.rules.hs256_secret_test

import data.preflight.rules.hs256_secret

stack(value) := {"stacks": [{"variant": "dev", "file": "template.yaml", "resources": {"AuthorizerFunction": {
	"type": "AWS::Lambda::Function", "line": 7,
	"raw": {"Environment": {"Variables": {"AUTH_HS256_SECRET": value}}},
}}}]}

test_refuses_a_literal if {
	some f in hs256_secret.deny with input as stack("fixture-secret")
	f.line == 7
	contains(f.msg, "a literal of 14 characters")
}

test_refuses_a_parameter if {
	some f in hs256_secret.deny with input as stack({"Ref": "AuthHs256Secret"})
	contains(f.msg, `is {"Ref":"AuthHs256Secret"}`)
}

test_refuses_a_dynamic_reference if {
	some f in hs256_secret.deny with input as stack("{{resolve:ssm:/plantstore/hs256}}")
	contains(f.msg, "a dynamic reference")
}

test_refuses_one_branch_of_an_if if {
	count(hs256_secret.deny) == 1 with input as stack({"Fn::If": ["IsDev", "", "x"]})
}

test_passes_the_empty_declaration if {
	count(hs256_secret.deny) == 0 with input as stack("")
}

test_passes_a_function_without_it if {
	count(hs256_secret.deny) == 0 with input as {"stacks": [{"file": "template.yaml", "resources": {"F": {"type": "AWS::Lambda::Function", "line": 1, "raw": {}}}}]}
}
