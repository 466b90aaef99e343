# METADATA
# title: Prod's WAF rules block, not only count
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-properties-wafv2-webacl-rule.html
#   - ref: https://docs.aws.amazon.com/waf/latest/developerguide/waf-rule-action.html
# custom:
#   id: PS-REL-006
#   danger: a rule of prod's web ACL whose Action is Count (or a rule group's OverrideAction Count) only counts what it matches, so the flood or the attack it names reaches the API while the dashboard shows WAF as on.
#   fix: keep Block (rules) and None (rule groups) in prod; to tune one rule of a managed group, override only that rule with RuleActionOverrides
package preflight.rules.waf_count

import data.preflight.lib.stacks

deny contains {"file": s.file, "line": stacks.prop_line(s, r, "Rules"), "msg": msg} if {
	some s in stacks.prod
	some id, r in s.resources
	r.type == "AWS::WAFv2::WebACL"
	some rule in r.properties.Rules
	some key in ["Action", "OverrideAction"]
	is_object(rule[key].Count)
	msg := sprintf("%s: prod's rule %s only counts what it matches (%s Count): the requests it names reach the API", [id, rule.Name, key])
}
