package preflight.rules.key_source_test

import data.preflight.rules.key_source

pool := "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123"

# [issuer, JWKS URL, what the refusal says]
refused := [
	[pool, "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Other1/.well-known/jwks.json", "outside the issuer's path /eu-west-1_AbC123"],
	[pool, "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC1234/.well-known/jwks.json", "outside the issuer's path"],
	[pool, concat("", [pool, "/../eu-west-1_Other1/.well-known/jwks.json"]), "dot segments"],
	[pool, concat("", [pool, "/%2e%2e/eu-west-1_Other1/.well-known/jwks.json"]), "escapes"],
	[pool, "https://cognito-idp.eu-west-1.amazonaws.com@evil.example/eu-west-1_AbC123/.well-known/jwks.json", "user information"],
	[pool, "https://cognito-idp.eu-west-1.amazonaws.com.evil.example/eu-west-1_AbC123/.well-known/jwks.json", "is on host"],
	[pool, "https://cognito-idp.eu-west-1.amazonaws.com:8443/eu-west-1_AbC123/.well-known/jwks.json", "is on host"],
	[pool, "http://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_AbC123/.well-known/jwks.json", "is http, not https"],
	[pool, concat("", [pool, "/.well-known/jwks.json?pool=eu-west-1_Other1"]), "a query"],
	[pool, "{{resolve:ssm:/plantstore/jwks}}", "is a dynamic reference"],
	[pool, "jwks.json", "is not a URL"],
	["", "https://idp.example.com/.well-known/jwks.json", "has no issuer"],
	["http://idp.example.com", "https://idp.example.com/.well-known/jwks.json", "no https URL"],
	["https://accounts.google.com", "https://www.googleapis.com/oauth2/v3/certs", "is on host www.googleapis.com"],
]

passed := [
	[pool, concat("", [pool, "/.well-known/jwks.json"])],
	["https://tenant.eu.auth0.com/", "https://tenant.eu.auth0.com/.well-known/jwks.json"],
	["https://example.okta.com/oauth2/default", "https://example.okta.com/oauth2/default/v1/keys"],
	["https://id.example.com/realms/plants", "https://ID.example.com:443/realms/plants/protocol/openid-connect/certs"],
	[pool, ""],
]

function(issuer, jwks) := {"stacks": [{"variant": "dev", "file": "template.yaml", "resources": {"AuthorizerFunction": {
	"type": "AWS::Lambda::Function", "line": 7,
	"properties": {"Environment": {"Variables": {"AUTH_ISSUER": issuer, "AUTH_JWKS_URL": jwks}}},
}}}]}

test_refuses_keys_of_elsewhere if {
	every c in refused {
		some f in key_source.deny with input as function(c[0], c[1])
		contains(f.msg, c[2])
	}
}

test_refuses_on_the_functions_line if {
	some f in key_source.deny with input as function(pool, "http://idp.example/jwks")
	f.line == 7
	startswith(f.msg, "AuthorizerFunction [dev]: AUTH_JWKS_URL http://idp.example/jwks is http, not https")
}

test_passes_the_issuers_own if {
	every c in passed {
		count(key_source.deny) == 0 with input as function(c[0], c[1])
	}
}
