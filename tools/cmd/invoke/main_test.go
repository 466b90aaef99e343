package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/tools/bootstraps"
	"github.com/plantstore/plantstore/tools/emulator"
)

func TestMain(m *testing.M) {
	emulator.Main(m, bootstraps.Cleanup)
}

func invoke(t *testing.T, function, event string, env map[string]string, extra ...string) (map[string]any, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	args := append([]string{"invoke", "-function", function, "-bootstrap", bootstraps.Bootstrap(t, function),
		"-event", filepath.Join("..", "..", "..", "events", event), "-env", filepath.Join("..", "..", "..", "events", "env.json")}, extra...)
	if err := run(context.Background(), args, func(k string) string { return env[k] }, &stdout, &stderr); err != nil {
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
	allow, _ := invoke(t, "AuthorizerFunction", "authorizer-valid.json", nil)
	if allow["principalId"] != "fixture-client" {
		t.Errorf("valid token: %v", allow)
	}
	denied, _ := invoke(t, "AuthorizerFunction", "authorizer-expired.json", nil)
	if denied["errorMessage"] != "Unauthorized" {
		t.Errorf("expired token: %v, want the error Unauthorized", denied)
	}
}

// With its own dynalite: the table and the seed plant are made on first use
// and kept in -data across invocations.
func TestInvokeCreatePlantWithLocalTable(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join("..", "..", "node_modules", ".bin", "dynalite")); err != nil {
		emulator.Dynalite(t) // skips, or fails under CI, with the reason
	}
	data := filepath.Join(t.TempDir(), "dynalite")
	for _, step := range []struct{ event, want string }{
		{"createplant-replay.json", `{"name":"Monstera","tag":"indoor"}`},
		{"createplant-valid.json", `{"name":"Fern"}`},
		{"createplant-conflict.json", `"error":40009`},
	} {
		out, log := invoke(t, "CreatePlantFunction", step.event, nil, "-data", data)
		if body, _ := out["body"].(string); !strings.Contains(body, step.want) {
			t.Errorf("%s: body %q, want %s\n%s", step.event, body, step.want, log)
		}
	}
}

// With AWS_ENDPOINT_URL_DYNAMODB set, the function uses that server.
func TestInvokeCreatePlantOnGivenEndpoint(t *testing.T) {
	t.Parallel()
	srv := emulator.Moto(t)
	table := emulator.NewTable(t, srv)
	env := map[string]string{"TABLE_NAME": table}
	for _, kv := range srv.Env() {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	out, log := invoke(t, "CreatePlantFunction", "createplant-with-tag.json", env)
	if out["statusCode"] != float64(200) {
		t.Errorf("got %v\n%s", out, log)
	}
}
