package preflight.rules.npm_dependency_source_test

import data.preflight.rules.npm_dependency_source

pkg(dep, spec) := {"files": {"package.json": {"lines": [
	"{",
	"  \"name\": \"x\",",
	"  \"devDependencies\": {",
	"    \"@cloud-copilot/iam-simulate\": \"0.1.173\",",
	sprintf("    %q: %q", [dep, spec]),
	"  }",
	"}",
]}}}

test_refuses_a_github_branch if {
	some f in npm_dependency_source.deny with input as pkg("dynalite", "github:architect/dynalite#main")
	f.line == 5
}

test_refuses_a_tarball_url if {
	count(npm_dependency_source.deny) == 1 with input as pkg("dynalite", "https://example.com/dynalite-4.0.0.tgz")
}

test_refuses_the_shorthand if {
	count(npm_dependency_source.deny) == 1 with input as pkg("dynalite", "architect/dynalite")
}

test_passes_versions if {
	count(npm_dependency_source.deny) == 0 with input as pkg("dynalite", "4.0.0")
	count(npm_dependency_source.deny) == 0 with input as pkg("dynalite", "^4.0.0")
}
