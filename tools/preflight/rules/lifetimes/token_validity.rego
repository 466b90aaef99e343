# METADATA
# title: Cognito tokens live as long as docs/deploy.md says
# related_resources:
#   - ref: https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/aws-resource-cognito-userpoolclient.html
#   - ref: https://docs.aws.amazon.com/cognito/latest/developerguide/amazon-cognito-user-pools-using-tokens-with-identity-providers.html
# custom:
#   id: PS-LIFE-003
#   danger: an app client's access or ID token valid beyond docs/deploy.md's ceiling stays usable that long once leaked (the authorizer checks only its signature and expiry, it cannot revoke it), a refresh token beyond its ceiling mints new ones for as long, and a token below the floor multiplies every caller's billed token requests.
#   fix: keep AccessTokenValidity and IdTokenValidity (with TokenValidityUnits) within docs/deploy.md's floor and ceiling, RefreshTokenValidity at most its ceiling ("Lifetimes")
package preflight.rules.token_validity

import data.preflight.lib.stacks

# Cognito's units in minutes, and each token's default unit and validity
# when the property is unset (access and ID: 1 hour; refresh: 30 days).
minutes := {"seconds": 1 / 60, "minutes": 1, "hours": 60, "days": 1440}

tokens := {
	"AccessToken": {"unit": "hours", "default": 1},
	"IdToken": {"unit": "hours", "default": 1},
	"RefreshToken": {"unit": "days", "default": 30},
}

validity(p, token) := stacks.number(object.get(p, sprintf("%sValidity", [token]), tokens[token].default)) * minutes[unit(p, token)]

unit(p, token) := object.get(object.get(p, "TokenValidityUnits", {}), token, tokens[token].unit)

bounds(floor, "RefreshToken") := [0, floor.refresh_token_max_days * 1440]

bounds(floor, token) := [floor.token_min_minutes, floor.token_max_minutes] if token != "RefreshToken"

deny contains {"file": s.file, "line": line(s, r, token), "msg": msg} if {
	some s in input.stacks
	some id, r in s.resources
	r.type == "AWS::Cognito::UserPoolClient"
	some token, _ in tokens
	m := validity(r.properties, token)
	[least, most] := bounds(input.evidence_floor, token)
	why := judge(m, least, most)
	msg := sprintf("%s: %s valid %v minutes, %s", [id, token, m, why])
}

judge(m, least, _) := sprintf("below docs/deploy.md's floor of %v minutes: every caller asks the pool for tokens (billed per request) that often", [least]) if {
	m < least
}

judge(m, _, most) := sprintf("beyond docs/deploy.md's ceiling of %v minutes: a leaked token stays usable that long, and nothing revokes it", [most]) if {
	m > most
}

line(s, r, token) := stacks.prop_line(s, r, sprintf("%sValidity", [token])) if {
	r.raw[sprintf("%sValidity", [token])]
} else := stacks.prop_line(s, r, "TokenValidityUnits")
