package preflight.rules.waf_count_test

import data.preflight.rules.waf_count

acl(variant, rule) := {"templates": {"template.yaml": {"resources": [{"id": "WebAcl", "line": 5, "properties": {"Rules": 12}}]}}, "stacks": [{"variant": variant, "file": "template.yaml", "resources": {"WebAcl": {
	"type": "AWS::WAFv2::WebACL", "line": 5, "source": "WebAcl", "properties": {"Rules": [rule]},
}}}]}

test_refuses_a_counting_rule_group if {
	some f in waf_count.deny with input as acl("prod", {"Name": "common", "OverrideAction": {"Count": {}}})
	f.line == 12
	contains(f.msg, "prod's rule common only counts what it matches (OverrideAction Count)")
}

test_refuses_a_counting_rate_rule if {
	count(waf_count.deny) == 1 with input as acl("prod", {"Name": "rate-per-ip", "Action": {"Count": {}}})
}

test_passes_blocking if {
	count(waf_count.deny) == 0 with input as acl("prod", {"Name": "rate-per-ip", "Action": {"Block": {}}})
}

test_passes_one_overridden_rule if {
	count(waf_count.deny) == 0 with input as acl("prod", {"Name": "common", "OverrideAction": {"None": {}}, "Statement": {"ManagedRuleGroupStatement": {"RuleActionOverrides": [{"Name": "SizeRestrictions_BODY", "ActionToUse": {"Count": {}}}]}}})
}

test_passes_count_in_dev if {
	count(waf_count.deny) == 0 with input as acl("dev", {"Name": "common", "OverrideAction": {"Count": {}}})
}
