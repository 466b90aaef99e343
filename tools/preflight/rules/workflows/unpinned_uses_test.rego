package preflight.rules.unpinned_uses_test

import data.preflight.rules.unpinned_uses

wf(uses) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "uses": "", "steps": [{"index": 1, "label": "x", "line": 3, "uses": uses}]}]}]}

test_refuses_a_tag if {
	count(unpinned_uses.deny) == 1 with input as wf("actions/checkout@v4")
}

test_refuses_a_docker_tag if {
	count(unpinned_uses.deny) == 1 with input as wf("docker://alpine:3")
}

test_passes_a_sha if {
	count(unpinned_uses.deny) == 0 with input as wf("actions/checkout@11d5960a326750d5838078e36cf38b85af677262")
}
