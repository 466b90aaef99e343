package localfn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every function's environment is read before anything starts: a template
// whose second function declares a variable Lambda would refuse stops
// Prepare with one line naming it, before the first function's dynalite
// makes its data folder.
func TestABadEnvironmentStopsBeforeAnythingStarts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tpl := filepath.Join(dir, "template.yaml")
	env := filepath.Join(dir, "env.json")
	files := map[string]string{
		tpl: `
Resources:
  Store:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          AWS_ENDPOINT_URL_DYNAMODB: ""
          TABLE_NAME: plants
  Zealot:
    Type: AWS::Serverless::Function
    Properties:
      Environment:
        Variables:
          "LD_PRELOAD=./evil.so": x
`,
		env: `{}`,
	}
	for path, text := range files {
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	data := filepath.Join(dir, "dynalite")
	cfg := Config{
		Template: tpl, EnvFile: env, DataDir: data, Log: os.Stderr,
		Bootstrap: func(fn string) string { return fn },
		LookupEnv: func(string) (string, bool) { return "", false },
	}
	set, err := Prepare(context.Background(), cfg, []string{"Store", "Zealot"})
	if err == nil {
		set.Close()
		t.Fatal("no error")
	}
	if !strings.Contains(err.Error(), `"LD_PRELOAD=./evil.so"`) {
		t.Errorf("the error does not name the variable: %v", err)
	}
	if _, err := os.Stat(data); err == nil {
		t.Error("the local dynalite made its data folder before the error")
	}
}
