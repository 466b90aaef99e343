# METADATA
# title: Every reviewed fuzz target still runs in CI
# related_resources:
#   - ref: https://go.dev/doc/security/fuzz/
# custom:
#   id: PS-CI-020
#   danger: a fuzz target dropped from make test's fuzz runs (FUZZ_TARGETS, the loop of make fuzz) stops CI from searching the inputs that target reaches, unseen by a reviewer.
#   fix: keep the target in FUZZ_TARGETS; if it is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.fuzz_targets

import data.preflight.lib.proof

dropped := {t | some t in proof.reviewed.fuzz.targets} - {t | some t in proof.current.fuzz.targets}

deny contains {"file": "Makefile", "line": line, "msg": sprintf("fuzz target %s no longer runs in CI (reviewed in %s)", [t, input.proof.file])} if {
	some t in dropped
	line := object.get(input.gate.make_vars, ["FUZZ_TARGETS", "line"], 0)
}
