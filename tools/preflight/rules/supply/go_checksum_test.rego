package preflight.rules.go_checksum_test

import data.preflight.rules.go_checksum

makefile(name, op, value) := {"makefile": {"file": "Makefile", "rules": {}, "assignments": [{"line": 7, "target": "", "name": name, "op": op, "value": value}]}, "workflows": [], "files": {}, "supply": {"settings": []}}

step_env(name, value) := {"makefile": {"file": "Makefile", "rules": {}, "assignments": []}, "workflows": [], "files": {}, "supply": {"settings": [{"file": ".github/workflows/ci.yml", "line": 40, "job": "check", "step": 3, "in": "env", "name": name, "value": value}]}}

ci_run(line) := {"makefile": {"file": "Makefile", "rules": {}, "assignments": []}, "workflows": [], "files": {".ci/run": {"lines": ["#!/usr/bin/env bash", line]}}, "supply": {"settings": []}}

test_refuses_gosumdb_off_in_the_makefile if {
	some f in go_checksum.deny with input as makefile("GOSUMDB", ":=", "off")
	f.line == 7
	contains(f.msg, "turns off the checksum database")
}

test_refuses_gonosumdb_in_a_step if {
	count(go_checksum.deny) == 1 with input as step_env("GONOSUMDB", "github.com/plantstore/*")
}

test_refuses_goproxy_direct_written_by_go_env if {
	some f in go_checksum.deny with input as ci_run("go env -w GOPROXY=direct")
	f.line == 2
}

test_refuses_gosflags_mod_mod if {
	count(go_checksum.deny) == 1 with input as ci_run("export GOFLAGS=-mod=mod")
}

test_refuses_goinsecure if {
	count(go_checksum.deny) == 1 with input as step_env("GOINSECURE", "*")
}

test_passes_the_default_proxy_and_readonly if {
	count(go_checksum.deny) == 0 with input as step_env("GOPROXY", "https://proxy.golang.org,direct")
	count(go_checksum.deny) == 0 with input as ci_run("GOFLAGS=-mod=readonly go build ./...")
	count(go_checksum.deny) == 0 with input as makefile("GOSUMDB", "?=", "sum.golang.org")
}
