package samtemplate

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/lambdatest"
)

func TestMain(m *testing.M) { dynamotest.Main(m, lambdatest.Cleanup) }

const ruleTemplate = `
Globals:
  Function:
    Timeout: 7
    Environment:
      Variables:
        FROM_GLOBALS: g
        OVERRIDDEN_GLOBAL: g
Resources:
  Fn:
    Type: AWS::Serverless::Function
    Properties:
      MemorySize: 256
      Handler: bootstrap
      Environment:
        Variables:
          PLAIN: template
          INTRINSIC: !Ref Table
          CONDITIONAL: !If [Cond, a, b]
          YES: true
          COUNT: 5
          SHELL_ONLY: template
          PARAM_ONLY: template
          FILE_ONLY: template
          ALL: template
          OVERRIDDEN_GLOBAL: own
  Other:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          OTHER_ONLY: x
`

// The rule of SAM CLI's EnvironmentVariables.resolve and _make_env_vars,
// case by case (see ResolveEnv).
func TestResolveEnvFollowsSAMRule(t *testing.T) {
	t.Parallel()
	tpl, err := Parse([]byte(ruleTemplate))
	if err != nil {
		t.Fatal(err)
	}
	shell := map[string]string{"SHELL_ONLY": "shell", "ALL": "shell", "PARAM_ONLY": "shell", "UNDECLARED_IN_SHELL": "shell", "PATH": "/bin"}
	file := EnvFile{
		"Parameters": {"PARAM_ONLY": "param", "ALL": "param", "UNDECLARED_PARAM": "p", "OTHER_ONLY": "p"},
		"Fn":         {"FILE_ONLY": "file", "ALL": "file", "UNDECLARED_IN_FILE": "f", "YES": false},
		"Other":      {"PLAIN": "other function's entry"},
	}
	lookup := func(k string) (string, bool) { v, ok := shell[k]; return v, ok }
	got, err := tpl.ResolveEnv("Fn", lookup, file, Session{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"FROM_GLOBALS":      "g",
		"OVERRIDDEN_GLOBAL": "own",
		"PLAIN":             "template",
		"INTRINSIC":         "",
		"CONDITIONAL":       "",
		"YES":               "false", // the file's boolean, stringified as SAM does
		"COUNT":             "5",
		"SHELL_ONLY":        "shell",
		"PARAM_ONLY":        "param",
		"FILE_ONLY":         "file",
		"ALL":               "file",
		// AWS variables: SAM's placeholders without a session.
		"AWS_SAM_LOCAL":                   "true",
		"AWS_REGION":                      "us-east-1",
		"AWS_DEFAULT_REGION":              "us-east-1",
		"AWS_ACCESS_KEY_ID":               "defaultkey",
		"AWS_SECRET_ACCESS_KEY":           "defaultsecret",
		"AWS_ACCOUNT_ID":                  "123456789012",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "256",
		"AWS_LAMBDA_FUNCTION_TIMEOUT":     "7",
		"AWS_LAMBDA_FUNCTION_HANDLER":     "bootstrap",
		"AWS_LAMBDA_FUNCTION_NAME":        "Fn",
		"AWS_LAMBDA_FUNCTION_VERSION":     "$LATEST",
		"AWS_LAMBDA_LOG_GROUP_NAME":       "aws/lambda/Fn",
		"AWS_LAMBDA_LOG_STREAM_NAME":      "$LATEST",
	}
	for k, w := range want {
		if g, ok := got[k]; !ok || g != w {
			t.Errorf("%s = %q (set %v), want %q", k, g, ok, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s = %q reached the function; it is not declared for it", k, got[k])
		}
	}

	withSession, err := tpl.ResolveEnv("Fn", lookup, file, Session{Region: "eu-west-1", AccessKeyID: "AK", SecretAccessKey: "SK", SessionToken: "ST"})
	if err != nil {
		t.Fatal(err)
	}
	for k, w := range map[string]string{"AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "AK", "AWS_SECRET_ACCESS_KEY": "SK", "AWS_SESSION_TOKEN": "ST"} {
		if withSession[k] != w {
			t.Errorf("with a session, %s = %q, want %q", k, withSession[k], w)
		}
	}
	if _, ok := got["AWS_SESSION_TOKEN"]; ok {
		t.Error("AWS_SESSION_TOKEN set without a session token")
	}
	if _, err := tpl.ResolveEnv("Nope", lookup, file, Session{}); err == nil || !strings.Contains(err.Error(), "Fn") {
		t.Errorf("unknown function: err = %v, want one naming the template's functions", err)
	}
}

func TestReadEnvFileRefusesNonObjects(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(path, []byte(`{"Fn": "TABLE_NAME=x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadEnvFile(path); err == nil {
		t.Error("an entry that is not an object was accepted; SAM CLI refuses it")
	}
}

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
	tpl, err := Load(templatePath)
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
	tpl, err := Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob("../../events/env*.json")
	if len(files) < 2 {
		t.Fatalf("env files %v; want events/env.json and the DynamoDB one", files)
	}
	for _, path := range files {
		file, err := ReadEnvFile(path)
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
	tpl, err := Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	file, err := ReadEnvFile("../../events/env.json")
	if err != nil {
		t.Fatal(err)
	}
	noShell := func(string) (string, bool) { return "", false }

	t.Run("AuthorizerFunction", func(t *testing.T) {
		t.Parallel()
		env, err := tpl.ResolveEnv("AuthorizerFunction", noShell, file, Session{})
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
		srv := dynamotest.Dynalite(t)
		table := dynamotest.NewTable(t, srv)
		second := EnvFile{}
		maps.Copy(second, file)
		second["CreatePlantFunction"] = map[string]any{"TABLE_NAME": table, "AWS_ENDPOINT_URL_DYNAMODB": srv.URL}
		// The shell's credentials, the server's own (it answers no others).
		env, err := tpl.ResolveEnv("CreatePlantFunction", noShell, second, Session{AccessKeyID: srv.Credentials.AccessKeyID, SecretAccessKey: srv.Credentials.SecretAccessKey})
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
	t.Run("AuthorizerFunction without an env file fails at init", func(t *testing.T) {
		t.Parallel()
		env, err := tpl.ResolveEnv("AuthorizerFunction", noShell, EnvFile{}, Session{})
		if err != nil {
			t.Fatal(err)
		}
		lambdatest.InitFails(t, lambdatest.Bootstrap(t, "AuthorizerFunction"), Environ(env), "issuer")
	})
}

// invokeWith runs function's bootstrap with exactly env (plus the Runtime
// API's address) on events/<event>.json and decodes its answer into out.
func invokeWith(t *testing.T, function string, env map[string]string, event string, out any) {
	t.Helper()
	fn := lambdatest.Launch(t, lambdatest.Bootstrap(t, function), Environ(env))
	_, payload := lambdatest.Event[map[string]any](t, event)
	res := fn.Invoke(t, payload, 10*time.Second)
	if res.Error != nil {
		t.Fatalf("%s failed: %s\n%s", function, res.Error, fn.Output.String())
	}
	if err := json.Unmarshal(res.Payload, out); err != nil {
		t.Fatalf("%s answered %s: %v", function, res.Payload, err)
	}
}
