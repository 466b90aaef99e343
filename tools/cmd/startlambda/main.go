// Command startlambda is `make start-lambda`: the Lambda Invoke API without
// Docker, as `sam local start-lambda` serves it (internal/lambdaemu's InvokeAPI), in front of
// the real bootstraps of every function of template.yaml on local Lambda
// Runtime APIs, each with the environment SAM CLI would give it from the
// -env file (tools/localfn). Functions are named by their logical ids.
//
// It listens on 127.0.0.1:$PORT (3001, SAM's default for start-lambda) and
// prints "listening on URL" and an `aws lambda invoke` line to try it. It
// answers only this machine's programs and pages (devserver.LoopbackOnly;
// -allow-host names more Hosts), and the PreTraffic hook reports to a local
// CodeDeploy recorder with placeholder credentials (tools/localfn).
package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/plantstore/plantstore/internal/lambdaemu"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/localserve"
	"github.com/plantstore/plantstore/tools/samtemplate"
)

func main() { command.Main() }

// command is make start-lambda.
var command = localserve.Command{
	Target: "start-lambda",
	Port:   3001, // SAM CLI's default for start-lambda
	Tool: func(cfg localserve.Config, _ func(string) (string, bool), _ io.Writer) localserve.Tool {
		return localserve.Tool{
			Name:      "Plant Store start-lambda",
			Functions: func(tpl *samtemplate.Template) ([]string, error) { return tpl.Functions(), nil },
			Front: func(set *localfn.Set, fns *lambdaemu.Functions, logger *slog.Logger) (http.Handler, error) {
				return lambdaemu.NewInvokeAPI(fns, set.Template.Functions(), logger), nil
			},
			Refuse: lambdaemu.Refuse,
			Describe: func(set *localfn.Set) string {
				return fmt.Sprintf("functions of %s: %s", cfg.Template, strings.Join(set.Template.Functions(), ", "))
			},
			Try: func(w io.Writer, url string, _ *localfn.Set) error {
				_, err := fmt.Fprintf(w, "Try:\naws lambda invoke --endpoint-url %s --function-name CreatePlantFunction --payload fileb://events/createplant-valid.json out.json\n", url)
				return err
			},
		}
	},
}
