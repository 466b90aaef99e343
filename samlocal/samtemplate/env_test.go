package samtemplate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
