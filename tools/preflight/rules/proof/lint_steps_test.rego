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
