# METADATA
# title: Access is the reviewed snapshot
# related_resources:
#   - ref: https://docs.aws.amazon.com/access-analyzer/latest/APIReference/API_CheckNoNewAccess.html
# custom:
#   id: PS-IAM-002
#   danger: access within the stacks that no reviewer has seen (tools/preflight/testdata/access.txt) widens a role unseen; access gone but still in the snapshot would let it come back unseen.
#   fix: if it is meant, run make preflight-accept and commit the snapshot's diff for review; else narrow the policy
package preflight.rules.reviewed_access

import data.preflight.rules.reach
import data.preflight.rules.resource_policy

# input.access: the requests the IAM evaluator allows now (granted) and
# those of the reviewed snapshot (reviewed), each
# "<variant> <role or boundary> <action> <resource>". A service of a role
# or boundary that PS-IAM-001 refuses (it reaches outside its stacks) is
# that rule's one finding: its access within its stacks waits for the fix;
# so is an outsider's access that PS-IAM-004 refuses.
granted := {l | some l in input.access.granted}

reviewed := {l | some l in input.access.reviewed}

# The differences first (the snapshot holds thousands of lines, and few
# differ), then those a refusal takes.
added := sort({l | some l in (granted - reviewed); not taken(l)})

removed := sort({l | some l in (reviewed - granted); not taken(l)})

taken(l) if l in resource_policy.refused

# A line of a refused "<variant> <subject> <service>" starts with it and ":".
taken(l) if {
	some k in reach.refused
	startswith(l, concat("", [k, ":"]))
}

deny contains {"file": input.access.file, "line": 0, "msg": sprintf("new access, which no reviewer has seen: %s", [show(added)])} if count(added) > 0

deny contains {"file": input.access.file, "line": 0, "msg": sprintf("access no longer granted is still in the snapshot: %s", [show(removed)]), "fix": "run make preflight-accept and commit the snapshot"} if count(removed) > 0

# show tells requests "<action> on <resource>" under "<variant> <subject>",
# one service at a time: its count and its first request.
show(lines) := concat("; ", [sprintf("%s: %s", [k, by_service([request(l) | some l in lines; key(l) == k])]) | some k in sort({key(l) | some l in lines})])

key(l) := concat(" ", array.slice(split(l, " "), 0, 2))

request(l) := sprintf("%s on %s", [f[2], concat(" ", array.slice(f, 3, count(f)))]) if f := split(l, " ")

by_service(reqs) := concat(", ", [sprintf("%s (%d, first %s)", [svc, count(of), of[0]]) |
	some svc in sort({split(r, ":")[0] | some r in reqs})
	of := [r | some r in reqs; split(r, ":")[0] == svc]
])
