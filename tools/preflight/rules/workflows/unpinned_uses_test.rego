package preflight.rules.unpinned_uses_test

import data.preflight.rules.unpinned_uses

wf(uses) := tagged(uses, "# v4.2.2")

tagged(uses, comment) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "uses": "", "steps": [{"index": 1, "label": "x", "line": 3, "uses": uses, "uses_comment": comment}]}]}]}

test_refuses_a_tag if {
	count(unpinned_uses.deny) == 1 with input as wf("actions/checkout@v4")
}

test_refuses_a_docker_tag if {
	count(unpinned_uses.deny) == 1 with input as wf("docker://alpine:3")
}

test_passes_a_sha if {
	count(unpinned_uses.deny) == 0 with input as wf("actions/checkout@11d5960a326750d5838078e36cf38b85af677262")
}

test_refuses_a_sha_without_its_tag if {
	count(unpinned_uses.deny) == 1 with input as tagged("actions/checkout@11d5960a326750d5838078e36cf38b85af677262", "")
}

test_refuses_a_sha_with_a_branch_comment if {
	count(unpinned_uses.deny) == 1 with input as tagged("actions/checkout@11d5960a326750d5838078e36cf38b85af677262", "# main")
}

action(steps) := {"actions": [{"file": ".github/actions/setup/action.yml", "steps": steps}]}

test_refuses_a_tag_in_a_composite_action if {
	some f in unpinned_uses.deny with input as action([{"index": 1, "line": 7, "uses": "actions/setup-node@v4", "uses_comment": ""}, {"index": 2, "line": 9, "uses": "", "uses_comment": "", "run": "npm ci"}])
	f.file == ".github/actions/setup/action.yml"
	f.line == 7
}

test_refuses_a_docker_action_s_image_by_tag if {
	count(unpinned_uses.deny) == 1 with input as action([{"index": 1, "line": 5, "uses": "docker://node:20", "uses_comment": ""}])
}

test_passes_a_pinned_composite_action_and_a_dockerfile if {
	count(unpinned_uses.deny) == 0 with input as action([{"index": 1, "line": 7, "uses": "actions/setup-node@49933ea5288caeca8642d1e84afbd3f7d6820020", "uses_comment": "# v4.4.0"}])
	count(unpinned_uses.deny) == 0 with input as action([{"index": 1, "line": 5, "uses": "Dockerfile", "uses_comment": ""}])
}
