# METADATA
# title: staticcheck runs every reviewed check
# related_resources:
#   - ref: https://staticcheck.dev/docs/configuration/
# custom:
#   id: PS-CI-023
#   danger: a check excluded from staticcheck (-checks with -SA1019, a staticcheck.conf's checks) or its tests left out (-tests=false) lets the bugs that check finds merge.
#   fix: keep staticcheck's checks as reviewed; if the exclusion is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.staticcheck_checks

import data.preflight.lib.proof

was := proof.reviewed.staticcheck

now := proof.current.staticcheck

# Where staticcheck is told: a staticcheck.conf that names the pattern,
# else the lint line that runs it.
where(p) := {"file": conf.file, "line": 1} if {
	some conf in input.gate.staticcheck_conf
	contains(conf.text, p)
} else := {"file": "Makefile", "line": c.line} if {
	some c in proof.tool_calls("staticcheck")
} else := {"file": "Makefile", "line": 0}

deny contains {"file": w.file, "line": w.line, "msg": sprintf("staticcheck no longer runs %s: the check is excluded (reviewed in %s)", [x, input.proof.file])} if {
	some x in ({p | some p in now.excluded} - {p | some p in was.excluded})
	w := where(concat("", ["-", x]))
}

deny contains {"file": w.file, "line": w.line, "msg": sprintf("staticcheck's checks no longer include %q (reviewed in %s)", [x, input.proof.file])} if {
	some x in ({p | some p in was.enabled} - {p | some p in now.enabled})
	w := where(x)
}

deny contains {"file": w.file, "line": w.line, "msg": "staticcheck runs with -tests=false: the tests' code is no longer checked"} if {
	was.tests
	not now.tests
	w := where("-tests")
}
