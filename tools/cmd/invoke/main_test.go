package invoke

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

func TestMain(m *testing.M) {
	dynamoemutest.Main(m, lambdatest.Cleanup)
}

var root = srctree.Path()

// invoke runs the tool with the shell environment shell and the env file
// envFile (events/env.json when empty).
func invoke(t *testing.T, function, event string, shell map[string]string, envFile string, extra ...string) (map[string]any, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if envFile == "" {
		envFile = filepath.Join(root, "events", "env.json")
	}
	args := append([]string{"invoke", function, "--build-dir", filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, function))), "--skip-build",
		"-e", filepath.Join(root, "events", event), "-n", envFile, "-t", filepath.Join(root, "template.yaml")}, extra...)
	lookup := func(k string) (string, bool) { v, ok := shell[k]; return v, ok }
	if err := cli.Run(context.Background(), args, lookup, &stdout, &stderr); err != nil {
		t.Fatalf("%s %s: %v\n%s", function, event, err, stderr.String())
	}
	var out map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("output %q: %v", stdout.String(), err)
	}
	return out, stderr.String()
}

func TestInvokeAuthorizer(t *testing.T) {
	t.Parallel()
	allow, log := invoke(t, "AuthorizerFunction", "authorizer-valid.json", nil, "")
	if allow["principalId"] != "fixture-client" {
		t.Errorf("valid token: %v", allow)
	}
	if strings.Contains(log, "dynalite") { // it declares no AWS_ENDPOINT_URL_DYNAMODB
		t.Errorf("a local DynamoDB was started for the authorizer:\n%s", log)
	}
	denied, _ := invoke(t, "AuthorizerFunction", "authorizer-expired.json", nil, "")
	if denied["errorMessage"] != "Unauthorized" {
		t.Errorf("expired token: %v, want the error Unauthorized", denied)
	}
}

// With its own dynalite: the table and the seed plant are made on first use
// and kept in -data across invocations.
func TestInvokeCreatePlantWithLocalTable(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	data := filepath.Join(t.TempDir(), "dynalite")
	for _, step := range []struct{ event, want string }{
		{"createplant-replay.json", `{"name":"Monstera","tag":"indoor"}`},
		{"createplant-valid.json", `{"name":"Fern"}`},
		{"createplant-conflict.json", `"error":40009`},
	} {
		out, log := invoke(t, "CreatePlantFunction", step.event, nil, "", "--data-dir", data)
		if body, _ := out["body"].(string); !strings.Contains(body, step.want) {
			t.Errorf("%s: body %q, want %s\n%s", step.event, body, step.want, log)
		}
	}
}

// Beside another run that holds -data (make start-api in another terminal),
// invoke still works, on a table of its own in memory, and says in one line
// what holds the folder.
func TestInvokeBesideAnotherRunOnItsData(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	data := filepath.Join(t.TempDir(), "dynalite")
	holder, err := dynamoemu.StartDynalite(data)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Stop()
	if err := dynamoemu.CreateTable(context.Background(), holder.Client(), fixtures.PlantsTable("plants")); err != nil { // LevelDB opens on first use
		t.Fatal(err)
	}
	out, log := invoke(t, "CreatePlantFunction", "createplant-valid.json", nil, "", "--data-dir", data)
	if body, _ := out["body"].(string); !strings.Contains(body, `{"name":"Fern"}`) {
		t.Errorf("body %q, want the created plant\n%s", body, log)
	}
	if !strings.Contains(log, data+" is held by process ") {
		t.Errorf("no line says what holds %s:\n%s", data, log)
	}
}

// An env file that names an endpoint points the function at that server, as
// a second --env-vars file does under sam local invoke, and the function
// signs with the shell's credentials, as under SAM (the server's own here).
// The same names set in the shell lose to the file, as under SAM.
func TestInvokeCreatePlantOnGivenEndpoint(t *testing.T) {
	t.Parallel()
	srv := dynamoemutest.Moto(t)
	table := dynamotest.NewTable(t, srv)
	envFile := filepath.Join(t.TempDir(), "env.json")
	raw, _ := json.Marshal(map[string]map[string]string{"CreatePlantFunction": {"TABLE_NAME": table, "AWS_ENDPOINT_URL_DYNAMODB": srv.URL}})
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	shell := map[string]string{"TABLE_NAME": "not-this-one", "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:1",
		"AWS_ACCESS_KEY_ID": srv.Credentials.AccessKeyID, "AWS_SECRET_ACCESS_KEY": srv.Credentials.SecretAccessKey}
	out, log := invoke(t, "CreatePlantFunction", "createplant-with-tag.json", shell, envFile)
	if out["statusCode"] != float64(200) {
		t.Errorf("got %v\n%s", out, log)
	}
}

// An unknown FUNCTION is refused with the names that exist.
func TestInvokeUnknownFunctionListsTheFunctions(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	args := []string{"invoke", "NoSuchFunction", "--build-dir", "/nonexistent", "--skip-build", "-e", filepath.Join(root, "events", "createplant-valid.json"),
		"-n", filepath.Join(root, "events", "env.json"), "-t", filepath.Join(root, "template.yaml")}
	err := cli.Run(context.Background(), args, func(string) (string, bool) { return "", false }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "AuthorizerFunction") || !strings.Contains(err.Error(), "CreatePlantFunction") {
		t.Errorf("err = %v, want one that lists the template's functions", err)
	}
}
