package startlambda

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/cli"
	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awslambda "github.com/aws/aws-sdk-go-v2/service/lambda"

	"github.com/plantstore/plantstore/internal/lambdatest"
)

func TestMain(m *testing.M) { dynamoemutest.Main(m, lambdatest.Cleanup) }

var root = srctree.Path()

// make start-lambda as the Go SDK sees it: the real bootstraps answer, a
// function error comes back as FunctionError, an unknown name is
// ResourceNotFound; a clean stop prints one stopped line.
func TestStartLambdaServesTheSDK(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat(filepath.Join(root, "node_modules", ".bin", "dynalite")); err != nil {
		dynamoemutest.Dynalite(t) // skips, or fails under CI, with the reason
	}
	var dir string
	for _, fn := range []string{"CreatePlantFunction", "AuthorizerFunction", "PreTrafficFunction"} {
		dir = filepath.Dir(filepath.Dir(lambdatest.Bootstrap(t, fn)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout, stderr proctest.Output
	done := make(chan error, 1)
	args := []string{"start-lambda", "-p", "0", "--build-dir", dir, "--skip-build", "--warm-containers", "LAZY", "-t", filepath.Join(root, "template.yaml"),
		"-n", filepath.Join(root, "events", "env.json"), "--data-dir", filepath.Join(t.TempDir(), "dynalite")}
	go func() {
		done <- cli.Run(ctx, args, func(k string) (string, bool) { return map[string]string{"PORT": "0"}[k], k == "PORT" }, &stdout, &stderr)
	}()
	var banner devserver.Banner
	for deadline := time.Now().Add(60 * time.Second); !banner.Complete(false); time.Sleep(20 * time.Millisecond) {
		banner = devserver.Banner{}
		for _, line := range strings.Split(stdout.String(), "\n") {
			banner.Line(line)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner within 60s:\n%s\n%s", stdout.String(), stderr.String())
		}
	}
	client := awslambda.New(awslambda.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(banner.URL),
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	})
	read := func(name string) []byte {
		b, err := os.ReadFile(filepath.Join(root, "events", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	out, err := client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("CreatePlantFunction"), Payload: read("createplant-valid")})
	if err != nil || out.FunctionError != nil || !strings.Contains(string(out.Payload), `"statusCode":200`) {
		t.Errorf("CreatePlantFunction: %v %v %s", err, out, payload(out))
	}
	out, err = client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("arn:aws:lambda:us-east-1:123456789012:function:AuthorizerFunction:live"), Payload: read("authorizer-expired")})
	if err != nil || aws.ToString(out.FunctionError) != "Unhandled" || !strings.Contains(string(out.Payload), "Unauthorized") {
		t.Errorf("AuthorizerFunction, expired token: %v %s", err, payload(out))
	}
	_, err = client.Invoke(ctx, &awslambda.InvokeInput{FunctionName: aws.String("Nope"), Payload: []byte(`{}`)})
	if err == nil || !strings.Contains(err.Error(), "ResourceNotFound") {
		t.Errorf("an unknown function: %v, want ResourceNotFound", err)
	}
	cancel()
	if err := <-done; err != nil || strings.Count(stdout.String(), "stopped") != 1 {
		t.Errorf("run = %v after a clean stop; output:\n%s", err, stdout.String())
	}
}

func payload(out *awslambda.InvokeOutput) string {
	if out == nil {
		return ""
	}
	return string(out.Payload)
}
