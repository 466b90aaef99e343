package preflight.rules.github_env_test

import data.preflight.rules.github_env

step(env) := {"index": 1, "label": "note", "line": 5, "action": "", "with": {}, "keys": {"env": {"line": 6, "value": env}}}

facts(env, stmts) := {
	"workflows": [{"name": "d.yml", "file": ".github/workflows/d.yml", "top": {}, "jobs": [{"name": "b", "keys": {}, "steps": [step(env)]}]}],
	"scripts": [{"file": ".github/workflows/d.yml", "kind": "step", "workflow": "d.yml", "job": "b", "step": 1, "where": "job b, step 1 \"note\"", "stmts": stmts}],
}

echo(word) := [{"id": 0, "parent": -1, "end": 0, "line": 8, "kind": "call", "words": ["echo", "NOTE=$M"], "reads": ["M"], "assigns": [], "redirs": [{"op": ">>", "fd": "", "word": word}]}]

test_refuses_event_data_into_github_env if {
	count(github_env.deny) == 1 with input as facts({"M": "${{ github.event.head_commit.message }}"}, echo("\"$GITHUB_ENV\""))
}

test_passes_a_literal_into_github_env if {
	count(github_env.deny) == 0 with input as facts({"M": "${{ github.sha }}"}, echo("\"$GITHUB_ENV\""))
}

test_passes_event_data_into_a_log if {
	count(github_env.deny) == 0 with input as facts({"M": "${{ github.event.head_commit.message }}"}, echo("note.log"))
}

test_refuses_through_a_variable_and_tee if {
	stmts := [
		{"id": 0, "parent": -1, "end": 1, "line": 8, "kind": "call", "words": ["note=\"$(head -c 72 <<<\"$M\")\""], "reads": [], "assigns": [{"name": "note", "value": "..."}], "redirs": []},
		{"id": 1, "parent": 0, "end": 1, "line": 8, "kind": "call", "words": ["head", "-c", "72"], "reads": ["M"], "assigns": [], "redirs": []},
		{"id": 2, "parent": -1, "end": 4, "line": 9, "kind": "pipe", "parts": [3, 4], "words": [], "reads": [], "assigns": [], "redirs": []},
		{"id": 3, "parent": 2, "end": 3, "line": 9, "kind": "call", "words": ["echo", "$note"], "reads": ["note"], "assigns": [], "redirs": []},
		{"id": 4, "parent": 2, "end": 4, "line": 9, "kind": "call", "words": ["tee", "-a", "\"$GITHUB_OUTPUT\""], "reads": ["GITHUB_OUTPUT"], "assigns": [], "redirs": []},
	]
	count(github_env.deny) == 1 with input as facts({"M": "${{ github.event.pull_request.title }}"}, stmts)
}
