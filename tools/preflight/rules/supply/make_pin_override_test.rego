package preflight.rules.make_pin_override_test

import data.preflight.rules.make_pin_override

makefile := {"file": "Makefile", "rules": {}, "assignments": [
	{"line": 15, "target": "", "name": "STATICCHECK_VERSION", "op": "?=", "value": "v0.8.2"},
	{"line": 12, "target": "", "name": "FUZZTIME", "op": "?=", "value": "20000x"},
]}

with_env(name, value) := {"makefile": makefile, "workflows": [], "files": {}, "supply": {"settings": [{"file": ".github/workflows/ci.yml", "line": 40, "job": "check", "step": 6, "in": "env", "name": name, "value": value}]}}

with_ci_run(line) := {"makefile": makefile, "workflows": [], "files": {".ci/run": {"lines": [line]}}, "supply": {"settings": []}}

test_refuses_a_workflow_env_over_the_pin if {
	some f in make_pin_override.deny with input as with_env("STATICCHECK_VERSION", "latest")
	f.line == 40
	contains(f.msg, "Makefile:15")
}

test_refuses_a_make_command_line_in_ci_run if {
	count(make_pin_override.deny) == 1 with input as with_ci_run("make lint STATICCHECK_VERSION=v0.7.0")
}

test_passes_other_variables if {
	count(make_pin_override.deny) == 0 with input as with_env("CI", "true")
	count(make_pin_override.deny) == 0 with input as with_ci_run("make fuzz FUZZTIME=1000x")
}
