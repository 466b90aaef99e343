# METADATA
# title: Each fuzz target runs as long as reviewed
# related_resources:
#   - ref: https://pkg.go.dev/cmd/go#hdr-Testing_flags
# custom:
#   id: PS-CI-021
#   danger: a shorter -fuzztime (FUZZTIME in the Makefile, ci.yml's env or make's command line) makes CI's fuzzing search fewer inputs than the reviewed proof, so a crash it used to find merges.
#   fix: keep FUZZTIME at the reviewed count (or raise it); if the cut is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.fuzz_time

import data.preflight.lib.checks
import data.preflight.lib.proof

was := proof.reviewed.fuzz.time

now := proof.current.fuzz.time

# The line that sets it: FUZZTIME where make test's value comes from, else
# the fuzz run's.
where := {"file": v.file, "line": v.line} if {
	v := input.gate.make_vars.FUZZTIME
	v.value == now
	v.file != ""
} else := {"file": "Makefile", "line": c.line} if {
	some c in checks.fuzz_tests
} else := {"file": "Makefile", "line": 0}

deny contains {"file": where.file, "line": where.line, "msg": msg} if {
	was != ""
	not proof.at_least(now, was)
	msg := sprintf("fuzz time %q is less than the reviewed %q (%s): CI's fuzzing searches fewer inputs", [now, was, input.proof.file])
}
