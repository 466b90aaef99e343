package localtest

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

func TestMain(m *testing.M) { dynamoemutest.Main(m, lambdatest.Cleanup) }

// reads is every variable each function reads, besides those Lambda itself
// sets (AWS_REGION, the credentials, AWS_LAMBDA_*), which a template may not
// declare. The template must declare each, so that an env file can set it
// under sam local.
var reads = map[string][]string{
	"CreatePlantFunction": {"AWS_ENDPOINT_URL_DYNAMODB", "LOG_LEVEL", "METRICS_NAMESPACE", "TABLE_NAME"},
	"AuthorizerFunction":  {"AUTH_AUDIENCE", "AUTH_HS256_SECRET", "AUTH_ISSUER", "AUTH_JWKS_URL", "AUTH_REQUIRED_SCOPE", "LOG_LEVEL", "METRICS_NAMESPACE"},
	"PreTrafficFunction": {"AUTHORIZER_VERSION", "AUTH_AUDIENCE", "AUTH_ISSUER", "AUTH_REQUIRED_SCOPE", "AWS_ENDPOINT_URL_CODEDEPLOY",
		"AWS_ENDPOINT_URL_COGNITO_IDENTITY_PROVIDER", "AWS_ENDPOINT_URL_LAMBDA", "COGNITO_CLIENT_ID", "COGNITO_TOKEN_ENDPOINT", "COGNITO_USER_POOL_ID",
		"CREATEPLANT_VERSION", "LOG_LEVEL", "METHOD_ARN"},
}

func TestTemplateDeclaresEveryVariableAFunctionReads(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	if got := tpl.Functions(); !slices.Equal(got, []string{"AuthorizerFunction", "CreatePlantFunction", "PreTrafficFunction"}) {
		t.Fatalf("functions %v", got)
	}
	for fn, want := range reads {
		declared, err := tpl.Declared(fn)
		if err != nil {
			t.Fatal(err)
		}
		got := slices.Sorted(maps.Keys(declared))
		if !slices.Equal(got, want) {
			t.Errorf("%s declares %v, want exactly %v", fn, got, want)
		}
	}
}

// Every env file in events/ names only functions of the template (or
// Parameters) and only variables the template declares for them: anything
// else would be silently dropped by SAM CLI.
func TestEnvFilesSetOnlyDeclaredNames(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../events/env*.json")
	if len(files) < 2 {
		t.Fatalf("env files %v; want events/env.json and the DynamoDB one", files)
	}
	for _, path := range files {
		file, err := samtemplate.ReadEnvFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for entry, vars := range file {
			if entry == "Parameters" {
				continue
			}
			declared, err := tpl.Declared(entry)
			if err != nil {
				t.Errorf("%s: %v", path, err)
				continue
			}
			for name := range vars {
				if _, ok := declared[name]; !ok {
					t.Errorf("%s: %s.%s is not declared in template.yaml; SAM CLI would drop it", path, entry, name)
				}
			}
		}
	}
}

// The real bootstraps, started with exactly what SAM CLI would give them from
// events/env.json (and no shell, no session), come up and answer the
// fixtures; createplant with a second file that adds the DynamoDB endpoint,
// as docs/deploy.md tells SAM users to write.
func TestBootstrapsRunOnTheResolvedEnvironment(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	file, err := samtemplate.ReadEnvFile("../../events/env.json")
	if err != nil {
		t.Fatal(err)
	}
	noShell := func(string) (string, bool) { return "", false }

	t.Run("AuthorizerFunction", func(t *testing.T) {
		t.Parallel()
		env, err := tpl.ResolveEnv("AuthorizerFunction", noShell, file, samtemplate.Session{})
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			PrincipalID    string `json:"principalId"`
			PolicyDocument struct {
				Statement []struct{ Effect string }
			} `json:"policyDocument"`
		}
		invokeWith(t, "AuthorizerFunction", env, "authorizer-valid", &answer)
		if answer.PrincipalID == "" || len(answer.PolicyDocument.Statement) != 1 || answer.PolicyDocument.Statement[0].Effect != "Allow" {
			t.Errorf("answer %+v, want an Allow policy", answer)
		}
	})
	t.Run("CreatePlantFunction", func(t *testing.T) {
		t.Parallel()
		srv := dynamoemutest.Dynalite(t)
		table := dynamotest.NewTable(t, srv)
		second := samtemplate.EnvFile{}
		maps.Copy(second, file)
		second["CreatePlantFunction"] = map[string]any{"TABLE_NAME": table, "AWS_ENDPOINT_URL_DYNAMODB": srv.URL}
		// The shell's credentials, the server's own (it answers no others).
		env, err := tpl.ResolveEnv("CreatePlantFunction", noShell, second, samtemplate.Session{AccessKeyID: srv.Credentials.AccessKeyID, SecretAccessKey: srv.Credentials.SecretAccessKey})
		if err != nil {
			t.Fatal(err)
		}
		var answer struct {
			StatusCode int    `json:"statusCode"`
			Body       string `json:"body"`
		}
		invokeWith(t, "CreatePlantFunction", env, "createplant-valid", &answer)
		if answer.StatusCode != 200 {
			t.Errorf("answer %+v, want 200", answer)
		}
	})
	t.Run("AuthorizerFunction without an env file", func(t *testing.T) {
		t.Parallel()
		// The template's values, as SAM CLI resolves them: the stack's
		// Cognito user pool by its logical ID, whose tokens the fixtures'
		// are not.
		env, err := tpl.ResolveEnv("AuthorizerFunction", noShell, samtemplate.EnvFile{}, samtemplate.Session{})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := env["AUTH_ISSUER"], "https://cognito-idp.us-east-1.amazonaws.com/UserPool"; got != want {
			t.Errorf("AUTH_ISSUER %q, want %q", got, want)
		}
		fn := lambdatest.Launch(t, lambdatest.Bootstrap(t, "AuthorizerFunction"), samtemplate.Environ(env))
		_, payload := lambdatest.Event[map[string]any](t, "authorizer-valid")
		if res := fn.Invoke(t, payload, 10*time.Second); !strings.Contains(string(res.Error), `"Unauthorized"`) {
			t.Errorf("answer %s %s, want the error Unauthorized", res.Payload, res.Error)
		}
	})
}

// invokeWith runs function's bootstrap with exactly env (plus the Runtime
// API's address) on events/<event>.json and decodes its answer into out.
func invokeWith(t *testing.T, function string, env map[string]string, event string, out any) {
	t.Helper()
	fn := lambdatest.Launch(t, lambdatest.Bootstrap(t, function), samtemplate.Environ(env))
	_, payload := lambdatest.Event[map[string]any](t, event)
	res := fn.Invoke(t, payload, 10*time.Second)
	if res.Error != nil {
		t.Fatalf("%s failed: %s\n%s", function, res.Error, fn.Output.String())
	}
	if err := json.Unmarshal(res.Payload, out); err != nil {
		t.Fatalf("%s answered %s: %v", function, res.Payload, err)
	}
}
