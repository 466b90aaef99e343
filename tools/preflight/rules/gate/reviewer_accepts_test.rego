package preflight.rules.reviewer_accepts_test

import data.preflight.rules.reviewer_accepts

script(target, c) := {"gate": {"runs": [], "scripts": [{"file": "Makefile", "line": 3, "target": target, "commands": [object.union({"line": 3, "assigns": {}, "redirects": []}, c)]}]}, "makefile": {"assignments": []}, "workflows": []}

test_refuses_make_preflight_accept if {
	count(reviewer_accepts.deny) == 1 with input as script("deploy", {"words": ["make", "preflight-accept"]})
}

test_refuses_update_preflight if {
	count(reviewer_accepts.deny) == 1 with input as script("test", {"words": ["go", "test"], "assigns": {"UPDATE_PREFLIGHT": "1"}})
}

test_refuses_a_write_to_the_snapshot if {
	count(reviewer_accepts.deny) == 1 with input as script("test", {"words": ["cp", "x", "tools/preflight/testdata/proof.json"]})
}

test_passes_the_target_a_person_runs if {
	count(reviewer_accepts.deny) == 0 with input as script("preflight-accept", {"words": ["go", "test"], "assigns": {"UPDATE_PREFLIGHT": "1"}})
}

test_refuses_a_workflow_env if {
	wf := {"file": "d.yml", "top": {}, "jobs": [{"keys": {"env": {"line": 4, "value": {"UPDATE_PREFLIGHT": "1"}}}, "steps": []}]}
	count(reviewer_accepts.deny) == 1 with input as {"gate": {"runs": [], "scripts": []}, "makefile": {"assignments": []}, "workflows": [wf]}
}
