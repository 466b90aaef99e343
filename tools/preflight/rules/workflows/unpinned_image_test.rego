package preflight.rules.unpinned_image_test

import data.preflight.rules.unpinned_image

wf(c) := {"workflows": [{"file": "w", "jobs": [{"name": "j", "keys": {"container": {"line": 4, "value": c}}}]}]}

test_refuses_a_tag if {
	count(unpinned_image.deny) == 1 with input as wf("public.ecr.aws/sam/build-provided.al2023:latest")
}

test_passes_a_digest if {
	count(unpinned_image.deny) == 0 with input as wf({"image": "alpine@sha256:0000000000000000000000000000000000000000000000000000000000000000"})
}
