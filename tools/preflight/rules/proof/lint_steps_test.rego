package preflight.rules.lint_steps_test

import data.preflight.rules.lint_steps

lint(cmds) := {
	"proof": {"file": "proof.json", "reviewed": {"lint": ["GOOS=windows go vet ./...", "gofmt -l ."]}},
	"gate": {"packages": [], "env": [], "runs": [{"target": "lint", "line": 3, "root": "lint", "as": "call", "commands": [object.union({"line": 4, "in_subst": false, "substs": {}, "assigns": {}}, c) | some c in cmds]}]},
}

test_passes_every_step_and_one_more if {
	count(lint_steps.deny) == 0 with input as lint([{"words": ["go", "vet", "./..."], "assigns": {"GOOS": "windows"}}, {"words": ["gofmt", "-l", "."]}, {"words": ["actionlint"]}])
}

test_refuses_a_step_removed if {
	count(lint_steps.deny) == 1 with input as lint([{"words": ["gofmt", "-l", "."]}, {"words": ["echo", "done"]}])
}

test_refuses_a_step_put_under_a_condition if {
	found := lint_steps.deny with input as lint([{"words": ["go", "vet", "./..."], "assigns": {"GOOS": "windows"}}, {"words": ["gofmt", "-l", "."], "guard": "script sha256:0123456789ab", "line": 9}])
	count(found) == 1
	some f in found
	f.line == 9
	contains(f.msg, "only when a condition holds")
}

test_refuses_a_reviewed_condition_changed if {
	reviewed := {"lint": ["gofmt -l . (only as its script sha256:0123456789ab runs it)"]}
	doc := json.patch(lint([{"words": ["gofmt", "-l", "."], "guard": "script sha256:ba9876543210"}]), [{"op": "replace", "path": "/proof/reviewed", "value": reviewed}])
	count(lint_steps.deny) == 1 with input as doc
}

test_passes_the_reviewed_condition if {
	reviewed := {"lint": ["gofmt -l . (only as its script sha256:0123456789ab runs it)"]}
	doc := json.patch(lint([{"words": ["gofmt", "-l", "."], "guard": "script sha256:0123456789ab"}]), [{"op": "replace", "path": "/proof/reviewed", "value": reviewed}])
	count(lint_steps.deny) == 0 with input as doc
}
