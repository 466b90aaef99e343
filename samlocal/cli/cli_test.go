package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/events"
)

// Flags and positional arguments come in any order, as SAM CLI's click
// takes them, and --parameter-overrides takes the words up to the next
// flag, as its OptionNargs does.
func TestArgumentsAsSAMCLITakesThem(t *testing.T) {
	t.Parallel()
	cfg, err := ServerConfig("start-lambda", []string{"A", "--parameter-overrides", "X=1", "Y=2", "-p", "0", "B", "--warm-containers", "eager", "-t", shop + "/template.yaml"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cfg.Functions, []string{"A", "B"}) || cfg.Overrides["X"] != "1" || cfg.Overrides["Y"] != "2" || !cfg.Eager || cfg.Port != 0 {
		t.Errorf("config %+v", cfg)
	}
	if _, err := ServerConfig("start-api", []string{"-t", shop + "/template.yaml", "Fn"}, &bytes.Buffer{}); err == nil {
		t.Error("start-api took a function name")
	}
	if _, err := ServerConfig("start-api", []string{"--warm-containers", "SOMETIMES", "-t", shop + "/template.yaml"}, &bytes.Buffer{}); err == nil {
		t.Error("--warm-containers SOMETIMES was taken")
	}
}

// invoke without a function names the functions to choose from when the
// template has more than one (samcli/commands/local/cli_common/
// invoke_context.py function_identifier), and an unknown one is refused
// with the same list, before anything is built.
func TestInvokeNamesTheFunctions(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{}, {"NoSuchFunction"}} {
		var stdout, stderr bytes.Buffer
		err := Run(context.Background(), append([]string{"invoke", "-t", shop + "/template.yaml", "--build-dir", t.TempDir()}, args...), noEnv, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), "[AdminAuthorizerFunction AuditFunction CategoryFunction OrdersFunction ProductsFunction]") {
			t.Errorf("invoke %v: %v, want the functions named", args, err)
		}
	}
}

// generate-event makes SAM CLI's events with its defaults and tags, in
// aws-lambda-go's types.
func TestGenerateEvent(t *testing.T) {
	t.Parallel()
	var stdout bytes.Buffer
	if err := Run(context.Background(), []string{"generate-event", "apigateway", "aws-proxy", "--method", "GET", "--path", "plants/7", "--body", "hi"}, noEnv, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var ev events.APIGatewayProxyRequest
	if err := json.Unmarshal(stdout.Bytes(), &ev); err != nil || ev.HTTPMethod != "GET" || ev.Path != "/plants/7" || ev.Body != "aGk=" || !ev.IsBase64Encoded || ev.RequestContext.Stage != "prod" {
		t.Errorf("aws-proxy: %+v, %v", ev, err)
	}
	stdout.Reset()
	if err := Run(context.Background(), []string{"generate-event", "dynamodb", "update", "--table", "Plants"}, noEnv, &stdout, &bytes.Buffer{}); err != nil {
		t.Fatal(err)
	}
	var ddb events.DynamoDBEvent
	if err := json.Unmarshal(stdout.Bytes(), &ddb); err != nil || len(ddb.Records) != 3 || !strings.Contains(ddb.Records[0].EventSourceArn, ":table/Plants/stream/") {
		t.Errorf("dynamodb update: %+v, %v", ddb, err)
	}
	if err := Run(context.Background(), []string{"generate-event", "sqs", "nothing"}, noEnv, &stdout, &bytes.Buffer{}); err == nil {
		t.Error("an event samlocal does not make was made")
	}
}

// The configuration file beside the template gives the flags the command
// line leaves alone their values, as SAM CLI's click does with it as its
// default_map (samcli/cli/cli_config_file.py): the environment's global
// parameters, each overridden by the command's own; --config-env picks
// another environment, --config-file another file; a key of the command's
// own table that no flag takes is said, and a named file that is missing
// or a file without its version is an error.
func TestSamconfigGivesTheFlagsDefaults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tpl := filepath.Join(dir, "template.yaml")
	for name, text := range map[string]string{
		"template.yaml": "Resources: {}\n",
		"samconfig.toml": `version = 0.1
[default.global.parameters]
stack_name = "shop"
parameter_overrides = "Stage=global"
[default.local_start_api.parameters]
warm_containers = "EAGER"
port = 3005
static_dir = "public"
[default.local_start_lambda.parameters]
port = 3006
[dev.local_start_api.parameters]
parameter_overrides = ["Stage=dev", "X=1"]
`,
		"noversion.toml": "[default.local_start_api.parameters]\nport = 1\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	cfg, err := ServerConfig("start-api", []string{"-t", tpl}, &stderr)
	if err != nil || !cfg.Eager || cfg.Port != 3005 || cfg.Overrides["Stage"] != "global" {
		t.Errorf("default: %+v, %v", cfg, err)
	}
	if want := "[default.local_start_api.parameters] static_dir: samlocal has no such flag; ignored\n"; !strings.HasSuffix(stderr.String(), want) || strings.Contains(stderr.String(), "stack_name") {
		t.Errorf("stderr %q, want one line ending %q", stderr.String(), want)
	}
	cfg, err = ServerConfig("start-api", []string{"-t", tpl, "-p", "0", "--warm-containers", "LAZY", "--parameter-overrides", "Stage=cli"}, io.Discard)
	if err != nil || cfg.Eager || cfg.Port != 0 || cfg.Overrides["Stage"] != "cli" {
		t.Errorf("the command line wins: %+v, %v", cfg, err)
	}
	cfg, err = ServerConfig("start-api", []string{"-t", tpl, "--config-env", "dev"}, io.Discard)
	if err != nil || cfg.Eager || cfg.Port != 3000 || cfg.Overrides["Stage"] != "dev" || cfg.Overrides["X"] != "1" {
		t.Errorf("--config-env dev: %+v, %v", cfg, err)
	}
	if cfg, err := ServerConfig("start-lambda", []string{"-t", tpl}, io.Discard); err != nil || cfg.Port != 3006 || cfg.Eager {
		t.Errorf("start-lambda: %+v, %v", cfg, err)
	}
	if _, err := ServerConfig("start-api", []string{"-t", tpl, "--config-file", "other.toml"}, io.Discard); err == nil {
		t.Error("a missing --config-file was taken")
	}
	if _, err := ServerConfig("start-api", []string{"-t", tpl, "--config-file", "noversion.toml"}, io.Discard); err == nil {
		t.Error("a file without its version was read")
	}
}
