package preflight.rules.artifact_logs_test

import data.preflight.rules.artifact_logs

upload(inputs) := {"workflows": [{"file": ".github/workflows/deploy.yml", "jobs": [{"name": "build", "steps": [{"index": 6, "line": 58, "label": "actions/upload-artifact", "action": "actions/upload-artifact", "with": inputs}]}]}]}

test_refuses_sam_logs if {
	some f in artifact_logs.deny with input as upload({"name": "logs", "path": "sam-build.tar\n.aws-sam/build.log\n"})
	f.line == 58
}

test_refuses_the_workspace if {
	count(artifact_logs.deny) == 1 with input as upload({"name": "all", "path": "${{ github.workspace }}"})
}

test_refuses_the_aws_directory if {
	count(artifact_logs.deny) == 1 with input as upload({"name": "debug", "path": "~/.aws/"})
}

test_refuses_hidden_files if {
	count(artifact_logs.deny) == 1 with input as upload({"name": "b", "path": "sam-build.tar", "include-hidden-files": "true"})
}

test_passes_the_build if {
	count(artifact_logs.deny) == 0 with input as upload({"name": "sam-build", "path": "sam-build.tar", "retention-days": "7"})
	count(artifact_logs.deny) == 0 with input as upload({"name": "sam-build", "path": ".aws-sam/build/"})
}
