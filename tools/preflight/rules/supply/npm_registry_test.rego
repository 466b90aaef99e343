package preflight.rules.npm_registry_test

import data.preflight.rules.npm_registry

base := {"makefile": {"file": "Makefile", "rules": {}, "assignments": []}, "workflows": [], "supply": {"settings": []}}

npmrc(lines) := object.union(base, {"files": {".npmrc": {"lines": lines}}})

test_refuses_a_mirror_registry if {
	some f in npm_registry.deny with input as npmrc(["fund=false", "registry=https://npm.example.com/"])
	f.line == 2
}

test_refuses_a_scoped_registry if {
	count(npm_registry.deny) == 1 with input as npmrc(["@cloud-copilot:registry=https://npm.pkg.github.com"])
}

test_refuses_strict_ssl_off if {
	count(npm_registry.deny) == 1 with input as npmrc(["strict-ssl=false"])
}

test_refuses_registry_on_npm_ci if {
	count(npm_registry.deny) == 1 with input as object.union(base, {"files": {".ci/run": {"lines": ["npm ci --registry https://npm.example.com"]}}})
}

test_passes_the_public_registry if {
	count(npm_registry.deny) == 0 with input as npmrc(["registry=https://registry.npmjs.org/", "fund=false"])
	count(npm_registry.deny) == 0 with input as object.union(base, {"files": {".ci/run": {"lines": ["npm ci --no-audit --no-fund"]}}})
}
