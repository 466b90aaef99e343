package startapi

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
)

// What the repository says reaches the banner escaped: a template whose
// stage name writes the clipboard (OSC 52, ended by BEL) and ends with CSI
// (U+009B) is shown with those written out, as git shows a path with
// control characters (core.quotePath).
func TestRepositoryDataIsPrintedEscaped(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	hostile := strings.Replace(string(raw), "StageName: v1", `StageName: "v1\e]52;c;ZXZpbA==\a\u009b31m"`, 1)
	tpl := filepath.Join(t.TempDir(), "template.yaml")
	if err := os.WriteFile(tpl, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	env := fixtures.Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9"
	rawEnv, _ := json.Marshal(env)
	envFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(envFile, rawEnv, 0o600); err != nil {
		t.Fatal(err)
	}
	l := startQuickOut(t, nil, "-n", envFile, "-t", tpl)
	l.Stop()
	out := l.Stdout.String()
	if !strings.Contains(out, `stage v1\x1b]52;c;ZXZpbA==\a\u009b31m)`) {
		t.Errorf("the banner does not show the stage escaped:\n%s", out)
	}
	devservertest.NothingObeyed(t, map[string]string{"stdout": out, "stderr": l.Stderr.String()})
}
