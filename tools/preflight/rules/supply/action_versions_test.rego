package preflight.rules.action_versions_test

import data.preflight.rules.action_versions

wf(action, inputs) := {"workflows": [{"file": ".github/workflows/ci.yml", "jobs": [{"name": "check", "steps": [{"index": 2, "line": 30, "label": action, "action": action, "with": inputs}]}]}], "supply": {"settings": [{"file": ".github/workflows/ci.yml", "line": 32, "job": "check", "step": 2, "in": "with", "name": k, "value": v} | some k, v in inputs]}}

test_refuses_go_stable if {
	some f in action_versions.deny with input as wf("actions/setup-go", {"go-version": "stable"})
	f.line == 32
}

test_refuses_go_1_x if {
	count(action_versions.deny) == 1 with input as wf("actions/setup-go", {"go-version": "1.x"})
}

test_refuses_python_3_x_and_check_latest if {
	count(action_versions.deny) == 2 with input as wf("actions/setup-python", {"python-version": "3.x", "check-latest": "true"})
}

test_refuses_node_lts if {
	count(action_versions.deny) == 1 with input as wf("actions/setup-node", {"node-version": "lts/*"})
}

test_refuses_setup_sam_without_a_version if {
	some f in action_versions.deny with input as wf("aws-actions/setup-sam", {"use-installer": "true"})
	f.line == 30
}

test_passes_exact_versions_and_lines if {
	count(action_versions.deny) == 0 with input as wf("aws-actions/setup-sam", {"use-installer": "true", "version": "1.161.1"})
	count(action_versions.deny) == 0 with input as wf("actions/setup-go", {"go-version-file": "go.mod"})
	count(action_versions.deny) == 0 with input as wf("actions/setup-node", {"node-version": "20"})
	count(action_versions.deny) == 0 with input as wf("actions/setup-python", {"python-version": "3.11"})
}
