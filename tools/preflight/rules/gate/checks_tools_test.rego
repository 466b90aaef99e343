package preflight.rules.checks_tools_test

import data.preflight.rules.checks_tools

doc(env, assigns, cmds) := {
	"gate": {"env": env, "scripts": [{"file": ".ci/run", "line": 1, "commands": cmds}]},
	"makefile": {"file": "Makefile", "assignments": assigns},
}

var(name, v) := {"name": name, "value": v, "file": ".github/workflows/ci.yml", "line": 7}

call(words) := {"line": 5, "words": words}

test_passes_the_files_as_they_are if {
	count(checks_tools.deny) == 0 with input as doc([var("CI", "true")], [{"name": "SHELL", "op": ":=", "value": "bash", "line": 2}], [call(["make", "test"])])
}

test_passes_system_and_home_folders if {
	count(checks_tools.deny) == 0 with input as doc([var("PATH", "/usr/local/go/bin:$HOME/go/bin:$PATH")], [], [])
	count(checks_tools.deny) == 0 with input as doc([var("PATH", "\"$HOME/go/bin:$PATH\"")], [], [])
}

test_refuses_a_checkout_folder_first if {
	count(checks_tools.deny) == 1 with input as doc([var("PATH", "$PWD/.ci/bin:$PATH")], [], [])
	count(checks_tools.deny) == 1 with input as doc([var("PATH", "${{ github.workspace }}/bin:${PATH}")], [], [])
	count(checks_tools.deny) == 1 with input as doc([], [{"name": "PATH", "op": ":=", "value": "scripts:$(PATH)", "line": 4}], [])
}

test_refuses_bash_env if {
	count(checks_tools.deny) == 1 with input as doc([var("BASH_ENV", ".ci/env")], [], [])
	count(checks_tools.deny) == 1 with input as doc([], [{"name": "BASH_ENV", "op": ":=", "value": ".ci/env", "line": 4}], [])
}

test_refuses_aliases_in_ci_run if {
	count(checks_tools.deny) == 1 with input as doc([], [], [call(["shopt", "-s", "expand_aliases"]), call(["alias", "make=true"]), call(["make", "test"])])
	count(checks_tools.deny) == 1 with input as doc([], [], [call(["hash", "-p", "/bin/true", "make"])])
}
