package preflight.rules.unpinned_package_test

import data.preflight.rules.unpinned_package

facts(words) := {"files": {"r.txt": {"lines": ["# tools", "cfn-lint==1.51.0", "moto[server]>=5"]}}, "scripts": [{"file": "Makefile", "kind": "recipe", "where": "target lint", "stmts": [{"id": 0, "parent": -1, "end": 0, "line": 7, "kind": "call", "words": words}]}]}

test_refuses_go_run_at_latest if {
	count(unpinned_package.deny) == 1 with input as facts(["go", "run", "honnef.co/go/tools/cmd/staticcheck@latest", "./..."])
}

test_passes_go_run_at_a_release if {
	count(unpinned_package.deny) == 0 with input as facts(["go", "run", "honnef.co/go/tools/cmd/staticcheck@v0.8.2", "./..."])
}

test_refuses_pip_install_unpinned if {
	count(unpinned_package.deny) == 1 with input as facts(["pip", "install", "cfn-lint"])
}

test_passes_pip_install_pinned if {
	count(unpinned_package.deny) == 0 with input as facts(["python3", "-m", "pip", "install", "--quiet", "cfn-lint==1.51.0"])
}

test_refuses_a_range_in_requirements if {
	count(unpinned_package.deny) == 1 with input as facts(["pip", "install", "-r", "r.txt"])
}

test_refuses_npm_install if {
	count(unpinned_package.deny) == 1 with input as facts(["npm", "install", "--no-audit"])
}

test_passes_npm_ci if {
	count(unpinned_package.deny) == 0 with input as facts(["npm", "ci", "--no-audit"])
}

test_refuses_npx_unpinned if {
	count(unpinned_package.deny) == 1 with input as facts(["npx", "cowsay"])
}

test_refuses_yarn_unfrozen if {
	count(unpinned_package.deny) == 1 with input as facts(["yarn", "install"])
}
