package preflight.rules.tested_packages_test

import data.preflight.rules.tested_packages

pkgs := [
	{"dir": "a", "import_path": "m/a", "module": "."},
	{"dir": "b", "import_path": "m/b", "module": "."},
	{"dir": "tools/t", "import_path": "m/tools/t", "module": "tools"},
]

cmd(words) := {"line": 9, "words": words, "assigns": {"CI": "true"}, "substs": {}, "in_subst": false, "loop": [], "background": false, "redirects": []}

golist(words) := {"line": 0, "words": words, "assigns": {}, "substs": {}}

race_line := object.union(cmd(["go", "test", "-race", "$(go list ./... ./tools/... | grep -vxF \"$(go list ./a)\")"]), {"substs": {"3": [[
	golist(["go", "list", "./...", "./tools/..."]),
	object.union(golist(["grep", "-vxF", "$(go list ./a)"]), {"substs": {"2": [[golist(["go", "list", "./a"])]]}}),
]]}})

gate(cmds, env) := {
	"gate": {"packages": pkgs, "env": env, "scripts": [], "runs": [{"target": "test", "root": "test", "as": "call", "line": 5, "commands": cmds}]},
	"makefile": {"assignments": []},
}

test_passes_every_package if {
	count(tested_packages.deny) == 0 with input as gate([cmd(["go", "test", "-count=1", "./a"]), race_line], [])
}

test_refuses_a_package_left_out if {
	count(tested_packages.deny) == 1 with input as gate([race_line], [])
}

test_refuses_a_grep_that_drops_a_package if {
	drop := object.union(cmd(["go", "test", "./..."]), {"substs": {"2": [[golist(["go", "list", "./...", "./tools/..."]), golist(["grep", "-v", "/tools/t"])]]}})
	count(tested_packages.deny) == 1 with input as gate([cmd(["go", "test", "./a"]), drop], [])
}

test_refuses_a_run_filter if {
	count(tested_packages.deny) == 1 with input as gate([cmd(["go", "test", "-run", "TestA", "./...", "./tools/..."])], [])
}

test_passes_shuffle if {
	count(tested_packages.deny) == 0 with input as gate([cmd(["go", "test", "-shuffle=on", "-p", "4", "./...", "./tools/..."])], [])
}

# -o keeps the binary and still runs every test; its value is no package.
test_passes_a_kept_test_binary if {
	count(tested_packages.deny) == 0 with input as gate([cmd(["go", "test", "-o", ".bin/tests/", "./...", "./tools/..."])], [])
}

# With -c, -o's binary is built and never run; -exec runs another program.
test_refuses_a_kept_binary_not_run if {
	count(tested_packages.deny) == 1 with input as gate([cmd(["go", "test", "-c", "-o", ".bin/tests/", "./...", "./tools/..."])], [])
	count(tested_packages.deny) == 1 with input as gate([cmd(["go", "test", "-exec", "true", "-o", ".bin/tests/", "./...", "./tools/..."])], [])
}

test_refuses_goflags_skip if {
	env := [{"name": "GOFLAGS", "value": "-skip=TestDelve", "file": "ci.yml", "line": 3}]
	count(tested_packages.deny) == 1 with input as gate([cmd(["go", "test", "./...", "./tools/..."])], env)
}

test_passes_goflags_mod if {
	env := [{"name": "GOFLAGS", "value": "-mod=readonly", "file": "ci.yml", "line": 3}]
	count(tested_packages.deny) == 0 with input as gate([cmd(["go", "test", "./...", "./tools/..."])], env)
}

test_refuses_a_go_test_under_a_condition if {
	guarded := object.union(race_line, {"guard": "script sha256:0123456789ab"})
	count(tested_packages.deny) == 1 with input as gate([cmd(["go", "test", "-count=1", "./a"]), guarded], [])
}
