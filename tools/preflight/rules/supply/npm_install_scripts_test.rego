package preflight.rules.npm_install_scripts_test

import data.preflight.rules.npm_install_scripts

base := {"makefile": {"file": "Makefile", "rules": {}, "assignments": []}, "workflows": [], "supply": {"settings": []}}

pkg(entry) := object.union(base, {"files": {"package.json": {"lines": [
	"{",
	"  \"devDependencies\": {",
	"    \"dynalite\": \"4.0.0\"",
	"  },",
	"  \"allowScripts\": {",
	sprintf("    %s", [entry]),
	"  }",
	"}",
]}}})

test_refuses_a_name_only_approval if {
	some f in npm_install_scripts.deny with input as pkg(`"classic-level": true`)
	f.line == 6
}

test_refuses_dangerously_allow_all_scripts if {
	count(npm_install_scripts.deny) == 1 with input as object.union(base, {"files": {".npmrc": {"lines": ["dangerously-allow-all-scripts=true"]}}})
}

test_refuses_ci_approving_scripts if {
	count(npm_install_scripts.deny) == 1 with input as object.union(base, {"files": {".ci/run": {"lines": ["npm install-scripts approve --all"]}}})
}

test_passes_a_pinned_approval_and_a_denial if {
	count(npm_install_scripts.deny) == 0 with input as pkg(`"classic-level@3.0.0": true`)
	count(npm_install_scripts.deny) == 0 with input as pkg(`"telemetry": false`)
}
