// Package apitest holds the API's contract for tests: the OpenAPI check
// (contract.go) and the fixtures. The fixtures are the API Gateway events in
// events/: REST API proxy events for createplant and TOKEN events for the
// authorizer, with tokens
// signed by a fixed test-only key, so that `sam local invoke -e`, `make
// invoke` and the tests all read the same files. Regenerate them with
//
//	go test ./internal/apitest -update
package apitest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/plant"
)

// The verifier settings the fixtures are made for (events/env.json holds
// them for both functions). The secret is for fixtures only: it guards
// nothing, and no deployment uses it.
const (
	Issuer   = "https://fixtures.plantstore.invalid"
	Audience = "plantstore"
	Scope    = "plants/write"
	Secret   = "fixtures-only-hs256-secret-guards-nothing"
	Table    = "plants"
	Subject  = "fixture-client"
)

// SeedID is the plant that the table holds before the createplant fixtures
// run (make invoke and the tests put it there): replay and conflict name it.
const (
	SeedID   = 100
	SeedName = "Monstera"
	SeedTag  = "indoor"
)

// Seed stores the seed plant in s, unless it is there already: the table
// that the replay and conflict fixtures expect.
func Seed(ctx context.Context, s plant.Store) error {
	tag := SeedTag
	if _, err := s.Create(ctx, plant.NewPlant{ID: SeedID, Name: SeedName, Tag: &tag}); err != nil {
		return fmt.Errorf("seed plant %d: %w", SeedID, err)
	}
	return nil
}

var (
	issuedAt = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	farAway  = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Sub(issuedAt)
)

// Fixture is one event file.
type Fixture struct {
	Name  string // file name in events/ without .json
	Event any
}

func token(aud, scope string, ttl time.Duration) string {
	tok, err := auth.NewHS256Token([]byte(Secret), auth.TokenSpec{
		Issuer: Issuer, Audience: aud, Subject: Subject, Scope: scope, IssuedAt: issuedAt, TTL: ttl,
	})
	if err != nil {
		panic(err) // signing with a fixed key does not fail
	}
	return tok
}

// ValidToken is a token that the fixture settings accept until 2100.
func ValidToken() string { return token(Audience, Scope, farAway) }

// CreatePlant returns the createplant fixtures.
func CreatePlant() []Fixture {
	big := `{"id":7,"name":"Big","pad":"` + strings.Repeat("p", 64<<10) + `"}`
	return []Fixture{
		{"createplant-valid", proxy(`{"id":1,"name":"Fern"}`, "application/json", false)},
		{"createplant-with-tag", proxy(`{"id":2,"name":"Ficus lyrata","tag":"indoor"}`, "application/json; charset=utf-8", false)},
		{"createplant-base64-body", proxy(base64.StdEncoding.EncodeToString([]byte(`{"id":3,"name":"Aloe","tag":"succulent"}`)), "application/json", true)},
		{"createplant-replay", proxy(`{"id":100,"name":"Monstera","tag":"indoor"}`, "application/json", false)},
		{"createplant-conflict", proxy(`{"id":100,"name":"Rubber plant"}`, "application/json", false)},
		{"createplant-bad-json", proxy(`{"id":4,"name":"Basil",}`, "application/json", false)},
		{"createplant-wrong-content-type", proxy(`{"id":4,"name":"Basil"}`, "text/plain", false)},
		{"createplant-too-large", proxy(big, "application/json", false)},
		{"createplant-missing-name", proxy(`{"id":5}`, "application/json", false)},
		{"createplant-wrong-type", proxy(`{"id":"5","name":"Sage"}`, "application/json", false)},
		{"createplant-bad-value", proxy(`{"id":6,"name":"   ","tag":""}`, "application/json", false)},
	}
}

// Authorizer returns the authorizer fixtures.
func Authorizer() []Fixture {
	return []Fixture{
		{"authorizer-valid", tokenEvent("Bearer " + ValidToken())},
		{"authorizer-expired", tokenEvent("Bearer " + token(Audience, Scope, time.Hour))},
		{"authorizer-wrong-audience", tokenEvent("Bearer " + token("someone-else", Scope, farAway))},
		{"authorizer-missing-scope", tokenEvent("Bearer " + token(Audience, "plants/read", farAway))},
		{"authorizer-garbage", tokenEvent("Bearer not.a.jwt")},
		{"authorizer-no-bearer", tokenEvent("Basic dXNlcjpwYXNzd29yZA==")},
	}
}

// All is every fixture.
func All() []Fixture { return append(CreatePlant(), Authorizer()...) }

// Env is events/env.json: the environment of each function for `sam local
// invoke --env-vars` and `make invoke`.
func Env() map[string]map[string]string {
	authEnv := map[string]string{
		"AUTH_ISSUER": Issuer, "AUTH_AUDIENCE": Audience, "AUTH_HS256_SECRET": Secret,
		"AUTH_REQUIRED_SCOPE": Scope, "AUTH_JWKS_URL": "", "METRICS_NAMESPACE": MetricsNamespace,
	}
	return map[string]map[string]string{
		"AuthorizerFunction":  authEnv,
		"CreatePlantFunction": {"TABLE_NAME": Table, "METRICS_NAMESPACE": MetricsNamespace},
		// The hook proves the functions that make start-lambda serves on its
		// default port, by their logical ids; there is no CodeDeploy locally
		// (its tests record the report instead).
		"PreTrafficFunction": {
			"CREATEPLANT_VERSION": "CreatePlantFunction", "AUTHORIZER_VERSION": "AuthorizerFunction",
			"METHOD_ARN": LocalMethodARN, "AWS_ENDPOINT_URL_LAMBDA": "http://127.0.0.1:3001",
		},
	}
}

// MetricsNamespace is where the functions count their metrics locally: make
// invoke and make start-api show the lines a deployed stack would turn into
// metrics.
const MetricsNamespace = "PlantStore/local"

// LocalMethodARN is a method ARN of the form API Gateway sends, for local
// events.
const LocalMethodARN = "arn:aws:execute-api:us-east-1:123456789012:pretraffic/v1/POST/plants"

// dockerDynamoDBEndpoint is where a function in SAM CLI's container reaches a
// DynamoDB Local or moto on the host.
const dockerDynamoDBEndpoint = "http://host.docker.internal:8000"

// EnvDynamoDBLocal is events/env-dynamodb-local.json: events/env.json with
// createplant pointed at DynamoDB on the host, the second env file a SAM user
// passes to sam local invoke or start-api.
func EnvDynamoDBLocal() map[string]map[string]string {
	env := Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = dockerDynamoDBEndpoint
	return env
}

const methodArn = "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/v1/POST/plants"

func tokenEvent(authorization string) events.APIGatewayCustomAuthorizerRequest {
	return events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: authorization, MethodArn: methodArn}
}

// proxy is a REST API proxy event for POST /plants as API Gateway sends it
// after the authorizer allowed the token.
func proxy(body, contentType string, base64Encoded bool) events.APIGatewayProxyRequest {
	headers := map[string]string{
		"Accept":        "application/json",
		"Authorization": "Bearer " + ValidToken(),
		"Content-Type":  contentType,
		"Host":          "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
		"User-Agent":    "curl/8.5.0",
	}
	multi := map[string][]string{}
	for k, v := range headers {
		multi[k] = []string{v}
	}
	return events.APIGatewayProxyRequest{
		Resource:          "/plants",
		Path:              "/plants",
		HTTPMethod:        "POST",
		Headers:           headers,
		MultiValueHeaders: multi,
		RequestContext: events.APIGatewayProxyRequestContext{
			AccountID:    "123456789012",
			ResourceID:   "abc123",
			Stage:        "v1",
			RequestID:    "c6af9ac6-7b61-11e6-9a41-93e8deadbeef",
			DomainName:   "a1b2c3d4e5.execute-api.us-east-1.amazonaws.com",
			APIID:        "a1b2c3d4e5",
			ResourcePath: "/plants",
			HTTPMethod:   "POST",
			Protocol:     "HTTP/1.1",
			Path:         "/v1/plants",
			Identity:     events.APIGatewayRequestIdentity{SourceIP: "203.0.113.10", UserAgent: "curl/8.5.0"},
			Authorizer:   map[string]any{"principalId": Subject, "sub": Subject, "scope": Scope, "integrationLatency": 12},
		},
		Body:            body,
		IsBase64Encoded: base64Encoded,
	}
}

// Marshal is how every file in events/ is written.
func Marshal(v any) []byte {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		panic(err)
	}
	return append(b, '\n')
}
