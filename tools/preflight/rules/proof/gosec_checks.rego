# METADATA
# title: gosec runs every reviewed rule, and fails
# related_resources:
#   - ref: https://github.com/securego/gosec#usage
# custom:
#   id: PS-CI-024
#   danger: a gosec rule excluded (-exclude=G304), a directory left out (-exclude-dir), the run narrowed to some rules (-include), a higher -severity or -confidence, or -no-fail lets the weaknesses gosec finds merge.
#   fix: keep gosec's flags as reviewed; if the change is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.gosec_checks

import data.preflight.lib.proof

was := proof.reviewed.gosec

now := proof.current.gosec

line := c.line if {
	some c in proof.tool_calls("gosec")
} else := 0

less contains sprintf("%s %s excluded", [what, x]) if {
	some what, field in {"rule": "excluded", "directory": "exclude_dirs"}
	some x in ({p | some p in now[field]} - {p | some p in was[field]})
}

less contains sprintf("only %s included", [concat(",", now.included)]) if {
	count(now.included) > 0
	narrower(was.included, now.included)
}

# narrower(was, now): -include now leaves out a rule the reviewed run had
# (with no -include, it had them all).
narrower(was, now) if count(was) == 0

narrower(was, now) if {
	some x in was
	not x in now
}

less contains sprintf("%s raised to %s", [k, now[k]]) if {
	some k in {"severity", "confidence"}
	proof.levels[now[k]] > proof.levels[was[k]]
}

less contains "-no-fail: its findings no longer fail the run" if {
	was.fails
	not now.fails
}

deny contains {"file": "Makefile", "line": line, "msg": sprintf("gosec proves less than reviewed (%s): %s", [input.proof.file, x])} if {
	some x in less
}
