package preflight.rules.deploy_order_test

import data.preflight.rules.deploy_order

ci := {"name": "ci", "line": 1, "uses": "./.github/workflows/ci.yml", "needs": [], "if": "", "has_environment": false, "steps": []}

dev(needs) := {"name": "dev", "line": 5, "uses": "", "needs": needs, "if": "", "has_environment": true, "environment": "dev", "steps": [
	{"calls": [["sam", "deploy"]], "if": ""},
	{"calls": [["make", "smoke", "URL=x"]], "if": ""},
]}

prod := {"name": "prod", "line": 9, "uses": "", "needs": ["dev"], "if": "", "has_environment": true, "environment": "prod", "steps": []}

# dev, and prod through it, no longer wait for the checks.
test_refuses_dev_without_the_checks if {
	count(deploy_order.deny) == 2 with input as {"workflows": [{"file": "d", "top": {}, "jobs": [ci, dev([]), prod]}]}
}

test_passes_the_chain if {
	count(deploy_order.deny) == 0 with input as {"workflows": [{"file": "d", "top": {}, "jobs": [ci, dev(["ci"]), prod]}]}
}
