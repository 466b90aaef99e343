# METADATA
# title: make test runs every package's tests, unfiltered
# related_resources:
#   - ref: https://pkg.go.dev/cmd/go#hdr-Testing_flags
# custom:
#   id: PS-CI-002
#   danger: a package left out of make test's go test lines, or a flag that selects or skips tests (-run, -skip, -short, -tags, -list, -args) on them or in GOFLAGS (ci.yml's env, .ci/run, the Makefile), lets a change merge with tests CI never ran.
#   fix: test every package that go list ./... ./samlocal/... ./tools/... reports in make test, with no flag that selects or skips tests and no GOFLAGS that adds one
package preflight.rules.tested_packages

import data.preflight.lib.checks

missing := sort({d | some d, _ in checks.packages} - checks.tested)

checks_line := max({c.line | some c in checks.unit_tests}) if count(checks.unit_tests) > 0

else := r.line if {
	some r in input.gate.runs
	r.target == "test"
} else := 0

show(l) := concat(", ", l) if count(l) <= 3

else := sprintf("%s and %d more", [concat(", ", array.slice(l, 0, 3)), count(l) - 3])

them(l) := "it" if count(l) == 1

else := "them"

deny contains {"file": "Makefile", "line": checks_line, "msg": msg} if {
	count(missing) > 0
	msg := sprintf("%d of the %d packages go list reports (%s) not tested in CI: make test's go test lines leave %s out", [count(missing), count(checks.packages), show(missing), them(missing)])
}

deny contains {"file": "Makefile", "line": c.line, "msg": msg} if {
	some c in checks.unit_tests
	args := checks.go_args(c.words)
	fs := checks.filters(args)
	count(fs) > 0
	shown := sort({checks.filter_with_value(args, f) | some f in fs})
	msg := sprintf("`go test` in make test has %s, which selects or skips tests: the rest never run in CI", [concat(" ", shown)])
}

# GOFLAGS adds its flags to every go command (go help environment).
goflags contains {"file": e.file, "line": e.line, "value": e.value} if {
	some e in input.gate.env
	e.name == "GOFLAGS"
}

goflags contains {"file": "Makefile", "line": a.line, "value": a.value} if {
	some a in input.makefile.assignments
	a.name == "GOFLAGS"
}

goflags contains {"file": "Makefile", "line": c.line, "value": c.assigns.GOFLAGS} if {
	some c in checks.commands("test")
	c.assigns.GOFLAGS
}

goflags contains {"file": s.file, "line": c.line, "value": c.assigns.GOFLAGS} if {
	some s in input.gate.scripts
	s.file == ".ci/run"
	some c in s.commands
	c.assigns.GOFLAGS
}

# go env -w GOFLAGS=... writes go's own environment file.
goflags contains {"file": s.file, "line": c.line, "value": substring(w, 8, -1)} if {
	some s in input.gate.scripts
	some c in s.commands
	checks.is_go(c, "env")
	"-w" in c.words
	some w in c.words
	startswith(w, "GOFLAGS=")
}

deny contains {"file": g.file, "line": g.line, "msg": msg} if {
	some g in goflags
	fs := checks.filters(split(g.value, " "))
	count(fs) > 0
	msg := sprintf("GOFLAGS=%s: %s selects or skips tests in every go test CI runs", [g.value, concat(" ", sort(fs))])
}
