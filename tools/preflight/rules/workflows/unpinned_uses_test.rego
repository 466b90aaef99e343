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
