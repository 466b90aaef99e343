package localtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/proctest"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/codedeploy"
	cdtypes "github.com/aws/aws-sdk-go-v2/service/codedeploy/types"

	"github.com/plantstore/plantstore/internal/fixtures"
)

// The PreTraffic hook, prepared as make start-lambda prepares it from a
// shell that holds AWS credentials, gets SAM's placeholders instead and a
// CodeDeploy on loopback that answers its report as CodeDeploy does; the
// other functions keep SAM's rule (the shell's credentials).
func TestThePreTrafficHookStaysLocal(t *testing.T) {
	t.Parallel()
	env := fixtures.Env()
	env["CreatePlantFunction"]["AWS_ENDPOINT_URL_DYNAMODB"] = "http://127.0.0.1:9" // no dynalite
	raw, _ := json.Marshal(env)
	envFile := filepath.Join(t.TempDir(), "env.json")
	if err := os.WriteFile(envFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	shell := map[string]string{"AWS_ACCESS_KEY_ID": "AKIASHELLKEY", "AWS_SECRET_ACCESS_KEY": "shell-secret", "AWS_SESSION_TOKEN": "shell-token"}
	var log proctest.Output
	cfg := localfn.Config{
		Template: srctree.Path("template.yaml"), EnvFile: envFile, DataDir: t.TempDir(),
		Bootstrap: func(fn string) string { return fn }, Log: &log,
		LookupEnv: func(k string) (string, bool) { v, ok := shell[k]; return v, ok },
	}
	set, err := localfn.Prepare(context.Background(), cfg, []string{"PreTrafficFunction", "CreatePlantFunction"})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()

	hook := set.Env["PreTrafficFunction"]
	if hook["AWS_ACCESS_KEY_ID"] != "defaultkey" || hook["AWS_SECRET_ACCESS_KEY"] != "defaultsecret" || hook["AWS_SESSION_TOKEN"] != "" {
		t.Errorf("the hook's credentials: %q %q %q, want SAM's placeholders and no session token",
			hook["AWS_ACCESS_KEY_ID"], hook["AWS_SECRET_ACCESS_KEY"], hook["AWS_SESSION_TOKEN"])
	}
	endpoint := hook["AWS_ENDPOINT_URL_CODEDEPLOY"]
	if !strings.HasPrefix(endpoint, "http://127.0.0.1:") {
		t.Fatalf("the hook's AWS_ENDPOINT_URL_CODEDEPLOY = %q, want the local recorder", endpoint)
	}
	if !strings.Contains(strings.Join(set.Specs["PreTrafficFunction"].Env, "\n"), "AWS_ENDPOINT_URL_CODEDEPLOY="+endpoint) {
		t.Error("the hook's process environment does not name the recorder")
	}
	if cp := set.Env["CreatePlantFunction"]; cp["AWS_ACCESS_KEY_ID"] != "AKIASHELLKEY" || cp["AWS_SESSION_TOKEN"] != "shell-token" {
		t.Errorf("createplant's credentials changed: %q %q; SAM gives it the shell's", cp["AWS_ACCESS_KEY_ID"], cp["AWS_SESSION_TOKEN"])
	}

	// The recorder answers the SDK's call as CodeDeploy does.
	client := codedeploy.New(codedeploy.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(endpoint),
		Credentials: credentials.NewStaticCredentialsProvider("defaultkey", "defaultsecret", ""),
	})
	out, err := client.PutLifecycleEventHookExecutionStatus(context.Background(), &codedeploy.PutLifecycleEventHookExecutionStatusInput{
		DeploymentId: aws.String("d-LOCAL1234"), LifecycleEventHookExecutionId: aws.String("exec-1"), Status: cdtypes.LifecycleEventStatusSucceeded,
	})
	if err != nil || aws.ToString(out.LifecycleEventHookExecutionId) != "exec-1" {
		t.Fatalf("PutLifecycleEventHookExecutionStatus: %v, %v", out, err)
	}
	if want := `deployment "d-LOCAL1234" hook execution "exec-1": "Succeeded"`; !strings.Contains(log.String(), want) {
		t.Errorf("the recorder's output:\n%s\nwant a line with %s", log.String(), want)
	}

	// A reload keeps the recorder.
	again, err := set.Reload(context.Background(), set.Template, cfg, []string{"PreTrafficFunction"})
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Env["PreTrafficFunction"]["AWS_ENDPOINT_URL_CODEDEPLOY"]; got != endpoint {
		t.Errorf("after a reload the hook reports to %q, want the same recorder %q", got, endpoint)
	}
}
