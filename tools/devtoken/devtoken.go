// Package devtoken signs the token that Plant Store's authorizer accepts
// under samlocal start-api: HS256 with the AUTH_HS256_SECRET, issuer and
// audience of the authorizer's environment as SAM's rule resolves it from
// the env file (samtemplate.ResolveEnv). make start-api hands it to
// samlocal as SAMLOCAL_TOKEN, which prints it in its banner and curl line
// and gives it to the page's explorer: what a project's authorizer accepts
// is the project's to know, never samlocal's.
package devtoken

import (
	"cmp"
	"errors"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// TTL is how long a token is valid.
const TTL = 24 * time.Hour

// Sign signs a token for the authorizer of the template's PlantsApi with
// the environment the env file gives it, valid TTL from now, for the local
// developer, with scope, else the authorizer's AUTH_REQUIRED_SCOPE.
func Sign(template, envFile, scope string, now time.Time) (string, error) {
	tpl, err := samtemplate.Load(template)
	if err != nil {
		return "", err
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		return "", err
	}
	if api.Authorizer == nil {
		return "", errors.New("PlantsApi has no authorizer")
	}
	file, err := samtemplate.ReadEnvFile(envFile)
	if err != nil {
		return "", err
	}
	env, err := tpl.ResolveEnv(api.Authorizer.Function, func(string) (string, bool) { return "", false }, file, samtemplate.Session{})
	if err != nil {
		return "", err
	}
	secret := env["AUTH_HS256_SECRET"]
	if secret == "" {
		return "", errors.New("the authorizer has no AUTH_HS256_SECRET in " + envFile + "; bring a token its JWKS accepts")
	}
	return auth.NewHS256Token([]byte(secret), auth.TokenSpec{
		Issuer: env["AUTH_ISSUER"], Audience: env["AUTH_AUDIENCE"], Subject: "local-developer",
		Scope: cmp.Or(scope, env["AUTH_REQUIRED_SCOPE"]), IssuedAt: now, TTL: TTL,
	})
}
