# METADATA
# title: No identity or key that does not expire
# related_resources:
#   - ref: https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html
# custom:
#   id: PS-CRED-001
#   danger: an IAM user, group, access key or other credential that never expires, or a key written into a template, lets anyone who reads it act as its owner until someone deletes it.
#   fix: "use a role: a function's Role, or for CI the environment's deploy role in pipeline/roles.yaml, taken through OIDC"
package preflight.rules.long_lived_credential

long_lived := {
	"AWS::IAM::User": "an IAM user is a long-lived identity: its access keys and password never expire",
	"AWS::IAM::AccessKey": "an access key never expires; anyone who reads it signs as its user until it is deleted",
	"AWS::IAM::Group": "an IAM group exists only to hold users, which are long-lived identities",
	"AWS::IAM::UserToGroupAddition": "it puts IAM users, long-lived identities, into a group",
	"AWS::IAM::UserPolicy": "it grants permissions to an IAM user, a long-lived identity",
	"AWS::IAM::GroupPolicy": "it grants permissions to the IAM users of a group",
	"AWS::IAM::ServiceSpecificCredential": "a service-specific credential is a password of an IAM user that never expires",
	"AWS::IAM::VirtualMFADevice": "an MFA device belongs to an IAM user, a long-lived identity",
	"AWS::IAM::ServerCertificate": "its private key is written into the template, for anyone who reads it",
	"AWS::EC2::KeyPair": "an SSH key pair is a key that never expires",
	"AWS::Transfer::User": "a Transfer Family user signs in with a static SSH key or password",
}

deny contains {"file": t.file, "line": r.line, "msg": sprintf("resource %s (%s): %s", [r.id, r.type, why])} if {
	some t in input.templates
	some r in t.resources
	why := long_lived[r.type]
}

deny contains {"file": t.file, "line": line, "msg": sprintf("resource %s (%s) %s: the policy is attached to IAM %s, long-lived identities", [r.id, r.type, key, lower(key)]), "fix": "attach it to roles only (Roles:)"} if {
	some t in input.templates
	some r in t.resources
	r.type in {"AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"}
	some key in ["Users", "Groups"]
	line := r.properties[key]
}

deny contains {"file": t.file, "line": r.properties.SecretString, "msg": sprintf("resource %s SecretString: the secret's value is written into the template (or taken from a key it creates)", [r.id]), "fix": "let Secrets Manager make it (GenerateSecretString), or put it in with the CLI"} if {
	some t in input.templates
	some r in t.resources
	r.type == "AWS::SecretsManager::Secret"
	r.properties.SecretString
}

deny contains {"file": t.file, "line": s.line, "msg": "the template reads an access key's secret (GetAtt SecretAccessKey), a credential that never expires"} if {
	some t in input.templates
	some s in t.scalars
	s.kind == "secret-access-key"
}

deny contains {"file": t.file, "line": s.line, "msg": sprintf("an AWS access key id (%s) is written into the template", [s.value]), "fix": "remove it and deactivate the key; use a role"} if {
	some t in input.templates
	some s in t.scalars
	s.kind == "access-key-id"
}
