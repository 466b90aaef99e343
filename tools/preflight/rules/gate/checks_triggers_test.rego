package preflight.rules.checks_triggers_test

import data.preflight.rules.checks_triggers

wf(triggers) := {"workflows": [{"name": "ci.yml", "file": ".github/workflows/ci.yml", "triggers": triggers}]}

test_passes_push_and_pull_request if {
	count(checks_triggers.deny) == 0 with input as wf([{"event": "push", "line": 2, "config": {"branches-ignore": ["main"]}}, {"event": "pull_request", "line": 4, "config": null}])
}

test_refuses_paths_ignore if {
	count(checks_triggers.deny) == 1 with input as wf([{"event": "push", "line": 2, "config": null}, {"event": "pull_request", "line": 4, "config": {"paths-ignore": ["docs/**"]}}])
}

test_refuses_types_without_synchronize if {
	count(checks_triggers.deny) == 1 with input as wf([{"event": "push", "line": 2, "config": null}, {"event": "pull_request", "line": 4, "config": {"types": ["opened"]}}])
}

test_refuses_no_pull_request if {
	count(checks_triggers.deny) == 1 with input as wf([{"event": "push", "line": 2, "config": null}])
}
