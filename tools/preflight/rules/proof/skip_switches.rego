# METADATA
# title: CI's tests fail where they would skip
# related_resources:
#   - ref: https://docs.github.com/en/actions/reference/workflows-and-actions/variables#default-environment-variables
# custom:
#   id: PS-CI-025
#   danger: CI set to anything but true, or NO_BROWSER=1, in the environment of make test's go test lines (ci.yml's env, .ci/run, the Makefile) makes the tests that need moto, dynalite, node or a browser skip in CI instead of failing, so what they prove is gone unseen.
#   fix: keep CI=true and no NO_BROWSER for make test in CI; if the change is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.skip_switches

import data.preflight.lib.checks
import data.preflight.lib.github
import data.preflight.lib.proof

# weakened: a switch that was strict when reviewed and is not now.
weakened contains name if {
	some name, v in proof.reviewed.skips
	proof.is_strict(name, v)
	not proof.is_strict(name, proof.current.skips[name])
}

# The checks' environment sets it: ci.yml or .ci/run, where a person
# edits it. A value from the repository's settings is PS-CI-005's.
deny contains {"file": e.file, "line": e.line, "msg": msg} if {
	some name in weakened
	some e in set_by_env(name)
	msg := sprintf("%s=%s in the checks' environment: make test's tests that need moto, dynalite, node or a browser skip in CI instead of failing (%s)", [e.name, e.value, input.proof.file])
}

set_by_env(name) := {e |
	some n, e in checks.env
	e.file != ""
	count(github.expressions(e.value)) == 0
	n in {name, "CI"}
	not proof.is_strict(n, e.value)
}

# Else the Makefile: the first go test line that runs with it.
deny contains {"file": "Makefile", "line": line, "msg": msg} if {
	some name in weakened
	count(set_by_env(name)) == 0
	not from_settings
	lines := {c.line | some c in checks.unit_tests; not proof.is_strict(name, proof.switch_value(c, name))}
	line := min(lines)
	msg := sprintf("make test's go test runs with %s=%s: its tests that need moto, dynalite, node or a browser skip in CI instead of failing (%s)", [name, proof.current.skips[name], input.proof.file])
}

from_settings if {
	some e in input.gate.env
	count(github.expressions(e.value)) > 0
}
