# METADATA
# title: Every reviewed package is still one go list reports
# related_resources:
#   - ref: https://pkg.go.dev/cmd/go#hdr-Build_constraints
# custom:
#   id: PS-CI-027
#   danger: a package tested when the proof was reviewed that go list no longer reports (a build constraint such as //go:build ignore on its files, a go.mod that cuts it off, its deletion) has tests CI no longer runs, and make test still passes.
#   fix: restore the package or its build constraint; if it is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.gone_packages

import data.preflight.lib.checks
import data.preflight.lib.proof

gone := {p | some p in proof.reviewed.packages} - {d | some d, _ in checks.packages}

deny contains {"file": d, "line": 0, "msg": sprintf("package %s, tested in the reviewed proof (%s), is no longer one go list reports: its tests no longer run", [d, input.proof.file])} if {
	checks.measured
	some d in gone
}
