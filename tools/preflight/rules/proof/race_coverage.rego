# METADATA
# title: Every reviewed package still runs under the race detector
# related_resources:
#   - ref: https://go.dev/doc/articles/race_detector
# custom:
#   id: PS-CI-026
#   danger: a package moved into RACE_FREE (or out of make test's -race line) is still tested but no longer under -race, so a data race in it merges unseen.
#   fix: keep the package under -race; if it truly starts no goroutine, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.race_coverage

import data.preflight.lib.checks
import data.preflight.lib.proof

# Packages no longer tested at all are PS-CI-002's.
unraced := ({p | some p in proof.reviewed.race} & checks.tested) - checks.raced

deny contains {"file": "Makefile", "line": line, "msg": msg} if {
	count(unraced) > 0
	line := object.get(input.gate.make_vars, ["RACE_FREE", "line"], 0)
	msg := sprintf("%s no longer run under -race in make test (reviewed in %s): a data race there merges unseen", [concat(", ", sort(unraced)), input.proof.file])
}
