package preflight.rules.image_by_tag_test

import data.preflight.rules.image_by_tag

facts(words) := {"scripts": [{"file": ".ci/run", "kind": "ci", "where": ".ci/run", "stmts": [{"id": 0, "parent": -1, "end": 0, "line": 3, "kind": "call", "words": words}]}]}

test_refuses_docker_run_by_tag if {
	count(image_by_tag.deny) == 1 with input as facts(["docker", "run", "--rm", "-p", "4566:4566", "localstack/localstack:latest"])
}

test_passes_docker_run_by_digest if {
	count(image_by_tag.deny) == 0 with input as facts(["docker", "run", "--rm", "x/y@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"])
}

test_refuses_sam_build_in_a_container if {
	count(image_by_tag.deny) == 1 with input as facts(["sam", "build", "--use-container"])
}

test_passes_sam_build if {
	count(image_by_tag.deny) == 0 with input as facts(["sam", "build", "--config-env", "dev"])
}
