package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/devserver/devservertest"
	"github.com/plantstore/plantstore/internal/fixtures"
)

// What the repository says reaches the banner escaped: an env file whose
// authorizer scope writes the clipboard (OSC 52, ended by BEL) and ends
// with CSI (U+009B) is shown with those written out, as git shows a path
// with control characters (core.quotePath).
func TestRepositoryDataIsPrintedEscaped(t *testing.T) {
	t.Parallel()
	env := fixtures.Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9"
	env["AuthorizerFunction"]["AUTH_REQUIRED_SCOPE"] = "plants/write\x1b]52;c;ZXZpbA==\x07\u009b31m"
	raw, _ := json.Marshal(env)
	envFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	l := startQuickOut(t, nil, "-env", envFile)
	l.Stop()
	out := l.Stdout.String()
	if !strings.Contains(out, `scope plants/write\x1b]52;c;ZXZpbA==\a\u009b31m,`) {
		t.Errorf("the banner does not show the scope escaped:\n%s", out)
	}
	devservertest.NothingObeyed(t, map[string]string{"stdout": out, "stderr": l.Stderr.String()})
}
