package preflight.rules.npm_lockfile_test

import data.preflight.rules.npm_lockfile

lock(pkgs) := {"supply": {"npm_lock": {"file": "package-lock.json", "packages": array.concat([{"path": "", "line": 6, "resolved": "", "resolved_line": 6, "integrity": "", "link": false}], pkgs)}}}

pkg(path, resolved, integrity) := {"path": path, "line": 20, "resolved": resolved, "resolved_line": 22, "integrity": integrity, "link": false}

test_refuses_a_git_resolution if {
	some f in npm_lockfile.deny with input as lock([pkg("node_modules/dynalite", "git+ssh://git@github.com/architect/dynalite.git#3f2a", "")])
	f.line == 22
}

test_refuses_a_missing_integrity if {
	count(npm_lockfile.deny) == 1 with input as lock([pkg("node_modules/dynalite", "https://registry.npmjs.org/dynalite/-/dynalite-4.0.0.tgz", "")])
}

test_refuses_another_registry if {
	count(npm_lockfile.deny) == 1 with input as lock([pkg("node_modules/dynalite", "https://npm.example.com/dynalite/-/dynalite-4.0.0.tgz", "sha512-x")])
}

test_passes_registry_packages_with_integrity if {
	count(npm_lockfile.deny) == 0 with input as lock([pkg("node_modules/dynalite", "https://registry.npmjs.org/dynalite/-/dynalite-4.0.0.tgz", "sha512-x"), pkg("node_modules/level", "", "sha512-y")])
}
