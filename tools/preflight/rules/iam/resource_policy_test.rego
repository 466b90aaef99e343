package preflight.rules.resource_policy_test

import data.preflight.rules.resource_policy

policy := {"variant": "dev", "file": "pipeline/roles.yaml", "id": "ArtifactsBucketPolicy", "resource": "ArtifactsBucket"}

grant(kind, account, caller, extra) := object.union(
	{
		"policy": policy, "action": "s3:GetObject", "kind": kind, "account": account, "own_account": "123456789012", "named": false,
		"caller": caller, "label": caller, "chose": [], "brought": "", "source": "", "sourced": false,
		"line": sprintf("dev %s s3:GetObject this:pipeline:ArtifactsBucket", [caller]),
	},
	extra,
)

facts(grants, allowlist) := {
	"access": {"variants": ["dev"], "resources": {"grants": grants, "unread": [], "untaken": [], "errors": []}},
	"allowlist": allowlist,
	"stacks": [{"variant": "dev", "probe": false, "file": "pipeline/roles.yaml", "resources": {"ArtifactsBucketPolicy": {"line": 70}}}],
}

staging := grant("iam", "111122223333", "arn:aws:iam::111122223333:root", {"named": true})

test_refuses_another_account_named if {
	some f in resource_policy.deny with input as facts([staging], [])
	f.line == 70
	startswith(f.msg, "ArtifactsBucketPolicy (dev): its resource policy gives external access to ArtifactsBucket: arn:aws:iam::111122223333:root (s3 (1, first s3:GetObject))")
}

test_refuses_the_public if {
	some f in resource_policy.deny with input as facts([grant("iam", "999999999999", "*", {})], [])
	contains(f.msg, "gives public access to ArtifactsBucket: any principal of another account (public)")
}

test_refuses_a_service_for_any_account if {
	some f in resource_policy.deny with input as facts([grant("service", "", "cloudwatch.amazonaws.com", {})], [])
	contains(f.msg, "cloudwatch.amazonaws.com for any account's resource (s3 (1, first s3:GetObject))")
}

test_refuses_a_stale_entry if {
	some f in resource_policy.deny with input as facts([], [{"kind": "external-access", "what": "dev ArtifactsBucket *", "reason": "nothing"}])
	startswith(f.msg, "external-access \"dev ArtifactsBucket *\": is stale")
}

test_passes_this_account_and_a_service_for_the_stack if {
	count(resource_policy.deny) == 0 with input as facts(
		[
			grant("iam", "123456789012", "arn:aws:iam::123456789012:role/x", {}),
			grant("service", "", "cloudformation.amazonaws.com(for:this:app:Api)", {"source": "this:app:Api", "sourced": true}),
		],
		[],
	)
}

test_passes_an_acknowledged_outsider if {
	count(resource_policy.deny) == 0 with input as facts([staging], [{"kind": "external-access", "what": "dev ArtifactsBucket arn:aws:iam::111122223333:root", "reason": "staging promotes dev's templates"}])
}
