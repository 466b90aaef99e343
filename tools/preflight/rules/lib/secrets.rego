# Helpers of the secrets rules: what in a template names or carries a
# secret (CloudFormation: Parameters' NoEcho, dynamic references; Cognito:
# an app client's ClientSecret attribute).
package preflight.lib.secrets

# secret_name: a name that says it holds a secret (a password, a token, a
# key), not one that names, locates or times it (KeyArn, TokenEndpoint,
# TokenValidity) or a key that is no secret (an S3 object's, a table's).
secret_name(name) if {
	regex.match(`(?i)(secret|passw(or)?d|passphrase|token|credential|api_?key|private_?key|signing_?key|[a-z0-9_]key$)`, name)
	not regex.match(`(?i)(arn|ids?|name|url|uri|endpoint|validity|units|type|days|seconds|minutes|hours|path|prefix|scope|issuer|audience|header|limit|enabled|version|region)s?$`, name)
	not regex.match(`(?i)(s3|object|sort|partition|hash|range|primary)_?key$`, name)
}

# secret_parameter: a parameter of the template that is a secret, by its
# NoEcho or its name.
secret_parameter(file, name) if {
	p := input.declared[file].parameters[name]
	lower(sprintf("%v", [object.get(p.value, "NoEcho", false)])) == "true"
}

secret_parameter(file, name) if {
	input.declared[file].parameters[name]
	secret_name(name)
}

# carried are the secrets a value carries, each described: a GetAtt of a
# client secret, a Ref or ${} of a secret parameter, a dynamic reference to
# Secrets Manager or a SecureString.
carried(file, value) := {d |
	walk(value, [_, v])
	d := describe(file, v)
}

describe(file, v) := sprintf("!GetAtt %s.ClientSecret (the app client's secret)", [v["Fn::GetAtt"][0]]) if {
	v["Fn::GetAtt"][1] == "ClientSecret"
} else := sprintf("!GetAtt %s (the app client's secret)", [v["Fn::GetAtt"]]) if {
	endswith(v["Fn::GetAtt"], ".ClientSecret")
} else := sprintf("%s (the app client's secret)", [m]) if {
	is_string(v)
	m := regex.find_n(`\$\{[A-Za-z0-9]+\.ClientSecret\}`, v, 1)[0]
} else := sprintf("!Ref %s (a secret parameter)", [v.Ref]) if {
	secret_parameter(file, v.Ref)
} else := sprintf("${%s} (a secret parameter)", [names[0]]) if {
	is_string(v)
	names := [m[1] |
		some m in regex.find_all_string_submatch_n(`\$\{([A-Za-z0-9]+)\}`, v, -1)
		secret_parameter(file, m[1])
	]
	count(names) > 0
} else := "a dynamic reference to a secret (resolved into plain text at deploy)" if {
	is_string(v)
	regex.match(`\{\{resolve:(secretsmanager|ssm-secure):`, v)
}
