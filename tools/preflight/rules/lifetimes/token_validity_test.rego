package preflight.rules.token_validity_test

import data.preflight.rules.token_validity

floor := {"token_min_minutes": 15, "token_max_minutes": 60, "refresh_token_max_days": 30}

client(props) := {"evidence_floor": floor, "templates": {"template.yaml": {"resources": [{"id": "UserPoolClient", "line": 640, "properties": {"AccessTokenValidity": 648, "TokenValidityUnits": 649}}]}}, "stacks": [{"file": "template.yaml", "resources": {"UserPoolClient": {
	"type": "AWS::Cognito::UserPoolClient", "line": 640, "source": "UserPoolClient", "raw": props, "properties": props,
}}}]}

test_refuses_a_day_long_access_token if {
	some f in token_validity.deny with input as client({"AccessTokenValidity": 24, "TokenValidityUnits": {"AccessToken": "hours"}})
	f.line == 648
	contains(f.msg, "UserPoolClient: AccessToken valid 1440 minutes, beyond docs/deploy.md's ceiling of 60 minutes")
}

test_refuses_a_unit_change if {
	some f in token_validity.deny with input as client({"AccessTokenValidity": 60, "TokenValidityUnits": {"AccessToken": "hours"}})
	contains(f.msg, "AccessToken valid 3600 minutes")
}

test_refuses_five_minutes if {
	some f in token_validity.deny with input as client({"IdTokenValidity": 5, "TokenValidityUnits": {"IdToken": "minutes"}})
	f.line == 640
	contains(f.msg, "IdToken valid 5 minutes, below docs/deploy.md's floor of 15 minutes")
}

test_refuses_a_year_of_refresh if {
	count(token_validity.deny) == 1 with input as client({"RefreshTokenValidity": 365})
}

test_passes_the_defaults if {
	count(token_validity.deny) == 0 with input as client({})
}

test_passes_an_hour_in_minutes if {
	count(token_validity.deny) == 0 with input as client({"AccessTokenValidity": 60, "TokenValidityUnits": {"AccessToken": "minutes"}})
}
