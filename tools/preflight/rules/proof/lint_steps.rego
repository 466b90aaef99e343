# METADATA
# title: make lint runs every reviewed step
# related_resources:
#   - ref: https://www.gnu.org/software/make/manual/html_node/Recipes.html
# custom:
#   id: PS-CI-022
#   danger: a lint step removed from make lint (a go vet for another platform, a cfn-lint variant, a module's tidy check), or put under a condition that can skip it on CI (an if, && or ||, a stamp keyed on less than its inputs), stops CI from proving what it proved when reviewed, and the change merges unseen.
#   fix: restore the step; if the change is meant, run make preflight-accept and commit tools/preflight/testdata/proof.json's diff for review
package preflight.rules.lint_steps

import data.preflight.lib.proof

gone := {s | some s in proof.reviewed.lint} - {s | some s in proof.current.lint}

# still are the current steps as they would be named without a condition.
still := {proof.unguarded(now) | some now in proof.current.lint}

lint_line := r.line if {
	some r in input.gate.runs
	r.target == "lint"
	r["as"] == "call"
} else := 0

deny contains {"file": "Makefile", "line": lint_line, "msg": sprintf("make lint no longer runs `%s` (reviewed in %s)", [s, input.proof.file])} if {
	some s in gone
	not proof.unguarded(s) in still
}

# A step still there under a new or changed condition: an if, && or || in
# its script, or the script around the condition (a stamp's key).
deny contains {"file": "Makefile", "line": line, "msg": sprintf("make lint runs `%s` only when a condition holds that was not reviewed (in %s: %s)", [proof.unguarded(s), input.proof.file, s])} if {
	some s in gone
	proof.unguarded(s) in still
	line := min({c.line | some c in proof.lint_commands; proof.unguarded(proof.step_name(c)) == proof.unguarded(s)})
}
