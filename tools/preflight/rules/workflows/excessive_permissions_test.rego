package preflight.rules.excessive_permissions_test

import data.preflight.rules.excessive_permissions

wf(top, job) := {"workflows": [{"file": "w.yml", "top": top, "jobs": [job]}]}

test_refuses_write_all if {
	count(excessive_permissions.deny) == 1 with input as wf({"permissions": {"line": 2, "value": "write-all"}}, {"name": "a", "keys": {}})
}

test_refuses_a_job_write if {
	count(excessive_permissions.deny) == 1 with input as wf({"permissions": {"line": 2, "value": {"contents": "read"}}}, {"name": "a", "keys": {"permissions": {"line": 9, "value": {"contents": "write"}}}})
}

test_refuses_none_declared if {
	count(excessive_permissions.deny) == 1 with input as wf({}, {"name": "a", "keys": {}})
}

test_passes_read if {
	count(excessive_permissions.deny) == 0 with input as wf({"permissions": {"line": 2, "value": {"contents": "read"}}}, {"name": "a", "keys": {"permissions": {"line": 9, "value": {"id-token": "write"}}}})
}

test_passes_security_events_for_a_sarif_upload if {
	job := {"name": "a", "steps": [{"action": "github/codeql-action/upload-sarif"}], "keys": {"permissions": {"line": 9, "value": {"contents": "read", "security-events": "write"}}}}
	count(excessive_permissions.deny) == 0 with input as wf({"permissions": {"line": 2, "value": {"contents": "read"}}}, job)
}

test_refuses_security_events_without_an_upload if {
	job := {"name": "a", "steps": [], "keys": {"permissions": {"line": 9, "value": {"security-events": "write"}}}}
	count(excessive_permissions.deny) == 1 with input as wf({"permissions": {"line": 2, "value": {"contents": "read"}}}, job)
}
