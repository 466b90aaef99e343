package invoke

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/samlocal/cli"
)

// A function whose init fails (LOG_LEVEL=bogus: lambdainit logs the reason
// and posts it to /runtime/init/error) prints what sam local invoke prints:
// the document the runtime posted, which the Runtime Interface Emulator
// hands back as the invocation's answer
// (aws-lambda-runtime-interface-emulator,
// internal/lambda/rapi/handler/initerror.go) and SAM writes to stdout
// (samcli/local/docker/container.py, wait_for_result); the function's own
// line is on stderr. make invoke then exits non-zero (SAM exits 0): the
// function never ran on the event, and a script or make must not take
// the document for its answer.
func TestAFailedInitPrintsTheInitError(t *testing.T) {
	t.Parallel()
	envFile := filepath.Join(t.TempDir(), "env.json")
	raw, _ := json.Marshal(map[string]map[string]string{"CreatePlantFunction": {"LOG_LEVEL": "bogus", "AWS_ENDPOINT_URL_DYNAMODB": "http://127.0.0.1:9"}})
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	args := []string{"invoke", "CreatePlantFunction", "--build-dir", filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, "CreatePlantFunction"))), "--skip-build",
		"-e", filepath.Join(root, "events", "createplant-valid.json"), "-n", envFile, "-t", filepath.Join(root, "template.yaml")}
	err := cli.Run(context.Background(), args, func(string) (string, bool) { return "", false }, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "init failed") || !strings.Contains(err.Error(), "bogus") {
		t.Errorf("run = %v, want an error naming the failed init", err)
	}
	var doc struct{ ErrorType, ErrorMessage string }
	if json.Unmarshal(stdout.Bytes(), &doc) != nil || doc.ErrorType != "InitError" || !strings.Contains(doc.ErrorMessage, "bogus") {
		t.Errorf("stdout %q, want the init error document", stdout.String())
	}
	if !strings.Contains(stderr.String(), `"msg":"init failed"`) {
		t.Errorf("the function's init line is not on stderr:\n%s", stderr.String())
	}
}
