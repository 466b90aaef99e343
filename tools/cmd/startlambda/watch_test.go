package startlambda

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/plantstore/plantstore/tools/watchtest"
)

// make start-lambda WATCH=1 on a copy of the tree: an edited message of
// createplant is answered after its rebuild; a change that does not compile
// leaves the last good code answering.
func TestReloads(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t)
	}
	tree := watchtest.CopyTree(t)
	boots := watchtest.Build(t, tree, []string{"AuthorizerFunction", "CreatePlantFunction", "PreTrafficFunction"}, "")
	var stdout, stderr proctest.Output
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args := []string{"start-lambda", "-p", "0", "-watch", "--build-dir", boots, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(tree, "template.yaml"),
		"-n", filepath.Join(tree, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite")}
	go func() {
		done <- cli.Run(ctx, args, func(k string) (string, bool) { return map[string]string{"PORT": "0"}[k], k == "PORT" }, &stdout, &stderr)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	banner := stdout.Banner(t)
	client := awslambda.New(awslambda.Options{Region: "us-east-1", BaseEndpoint: aws.String(banner.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", "")})
	event, err := os.ReadFile(filepath.Join(tree, "events", "createplant-bad-json.json"))
	if err != nil {
		t.Fatal(err)
	}
	answer := func() string {
		out, err := client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("CreatePlantFunction"), Payload: event})
		if err != nil {
			t.Fatal(err)
		}
		return string(out.Payload)
	}
	if a := answer(); !strings.Contains(a, "the body is not valid JSON") {
		t.Fatalf("before: %s", a)
	}
	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is not valid JSON (at byte %d)"`, `"the body is no JSON (at byte %d)"`)
	stdout.WaitFor(t, "; ready", 1)
	if a := answer(); !strings.Contains(a, "the body is no JSON") {
		t.Errorf("after the rebuild: %s", a)
	}
	watchtest.Edit(t, filepath.Join(tree, "internal", "httpapi", "decode.go"), `"the body is no JSON (at byte %d)"`, `"the body is no JSON" +`)
	stdout.WaitFor(t, "the build failed", 1)
	if a := answer(); !strings.Contains(a, "the body is no JSON") {
		t.Errorf("after a failed build: %s", a)
	}
	t.Logf("make start-lambda WATCH=1 printed:\n%s", stdout.String())
}
