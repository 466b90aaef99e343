// Command startapi is `make start-api`: the deployed chain on a laptop,
// without Docker. It reads template.yaml and serves its REST API as API
// Gateway would (tools/gateway: routes, the TOKEN authorizer with its
// validation expression and cache, the stage throttle, every gateway
// response) in front of the functions' real bootstraps on local Lambda
// Runtime APIs, each with the environment SAM CLI would give it
// (samtemplate.ResolveEnv, from the -env file). createplant stores in a
// dynalite that keeps its data under .plantstore/ unless the env file names
// an AWS_ENDPOINT_URL_DYNAMODB.
//
// It listens on 127.0.0.1:$PORT (3000), prints "listening on URL", a token
// that the authorizer accepts when the authorizer's environment holds an
// HS256 secret, and a curl line. A change to template.yaml (a route, the
// validation expression, the throttle, a gateway response) changes what it
// answers. It answers only this machine's programs and pages
// (devserver.LoopbackOnly; -allow-host names more Hosts): others get 403 in
// the template's DEFAULT_4XX shape.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/devserver"
	"github.com/plantstore/plantstore/internal/lambdaemu"
	"github.com/plantstore/plantstore/tools/gateway"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/localserve"
	"github.com/plantstore/plantstore/tools/samtemplate"
	"github.com/plantstore/plantstore/tools/trace"
)

func main() { command().Main() }

// command is make start-api; its own flag -api names the API to serve.
func command() localserve.Command {
	apiID := "PlantsApi"
	return localserve.Command{
		Target: "start-api",
		Port:   3000,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&apiID, "api", apiID, "logical ID of the AWS::Serverless::Api to serve")
		},
		Tool: func(cfg localserve.Config, lookupEnv func(string) (string, bool), stdout io.Writer) localserve.Tool {
			return gatewayTool(cfg, apiID, lookupEnv, stdout)
		},
	}
}

// gatewayTool serves the API apiID as API Gateway would, in front of its
// functions.
func gatewayTool(cfg localserve.Config, apiID string, lookupEnv func(string) (string, bool), stdout io.Writer) localserve.Tool {
	// current is the newest gateway, whose gateway responses answer
	// refused requests.
	var current atomic.Pointer[gateway.Gateway]
	// Every request is traced: one line each on stdout, and the page
	// under /_plantstore/ with their steps and log lines.
	rec := trace.NewRecorder(stdout)
	return localserve.Tool{
		Trace:     rec,
		Name:      "Plant Store start-api",
		Functions: func(tpl *samtemplate.Template) ([]string, error) { return servedFunctions(tpl, apiID) },
		Front: func(set *localfn.Set, fns *lambdaemu.Functions, logger *slog.Logger) (http.Handler, error) {
			api, err := set.Template.RestAPI(apiID)
			if err != nil {
				return nil, err
			}
			gw, err := gateway.New(api, fns, time.Now, logger)
			if err != nil {
				return nil, err
			}
			if cfg.Debug != "" {
				// A function stopped at a breakpoint is not a timed-out
				// integration: no timeout while debugging (lambdaemu.Spec).
				gw.IntegrationTimeout = 24 * time.Hour
			}
			current.Store(gw)
			return gw, nil
		},
		Refuse: func(w http.ResponseWriter, _ string) { current.Load().Refuse(w) },
		Describe: func(set *localfn.Set) string {
			api, _ := set.Template.RestAPI(apiID) // read by Functions already
			return fmt.Sprintf("%s from %s, stage %s; no stage prefix in paths, as under sam local start-api", apiID, cfg.Template, api.Stage)
		},
		Try: func(w io.Writer, url string, set *localfn.Set) error {
			api, _ := set.Template.RestAPI(apiID)
			getenv := func(k string) string { v, _ := lookupEnv(k); return v }
			var env map[string]string
			if api.Authorizer != nil {
				env = set.Env[api.Authorizer.Function]
			}
			explorer, err := newExplorer(filepath.Join(cfg.Root(), "api", "openapi.yaml"), env, getenv("TOKEN_SCOPE"))
			if err != nil {
				return err
			}
			rec.Explorer = explorer
			fmt.Fprintf(w, "Requests, each with its steps and log lines: %s (API explorer: %s)\n", rec.Link(url, "requests"), rec.Link(url, "explorer"))
			if api.Authorizer == nil {
				return nil
			}
			return printToken(w, env, getenv("TOKEN_SCOPE"), url)
		},
		MaxHeaderBytes: gateway.MaxHeaderBytes, // net/http adds 4 KiB of slack; the gateway checks the exact quota
	}
}

// newExplorer reads the operations of the OpenAPI document at path (none
// when the file is missing) and signs a token for the explorer as
// printToken does.
func newExplorer(path string, env map[string]string, scope string) (trace.Explorer, error) {
	var ex trace.Explorer
	doc, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ex, err
	}
	if err == nil {
		if ex.Operations, err = trace.ParseOpenAPI(doc); err != nil {
			return ex, err
		}
	}
	if secret, spec, ok := tokenSpec(env, scope); ok {
		spec.IssuedAt, spec.TTL = time.Now(), 24*time.Hour // as the printed one's
		if ex.Token, err = auth.NewHS256Token(secret, spec); err != nil {
			return ex, err
		}
	}
	return ex, nil
}

// tokenSpec is the token that the authorizer whose environment is env
// accepts, when that environment holds an HS256 secret: its issuer and
// audience, the local developer, and scope, else AUTH_REQUIRED_SCOPE.
func tokenSpec(env map[string]string, scope string) ([]byte, auth.TokenSpec, bool) {
	secret := env["AUTH_HS256_SECRET"]
	spec := auth.TokenSpec{Issuer: env["AUTH_ISSUER"], Audience: env["AUTH_AUDIENCE"], Subject: "local-developer", Scope: cmp.Or(scope, env["AUTH_REQUIRED_SCOPE"])}
	return []byte(secret), spec, secret != ""
}

// printToken prints a token that the authorizer accepts, when its
// environment holds an HS256 secret, and a curl line to try it. Its scope is
// scope, else the authorizer's AUTH_REQUIRED_SCOPE.
func printToken(w io.Writer, env map[string]string, scope, url string) error {
	secret, spec, ok := tokenSpec(env, scope)
	if !ok {
		fmt.Fprintln(w, "The authorizer has no HS256 secret in its environment; bring a token its JWKS accepts.")
		return nil
	}
	return devserver.PrintToken(w, secret, spec, url, ", signed with the authorizer's AUTH_HS256_SECRET from the env file", time.Now())
}

// servedFunctions are the functions the API invokes: its routes' and its
// authorizer's, each once.
func servedFunctions(tpl *samtemplate.Template, apiID string) ([]string, error) {
	api, err := tpl.RestAPI(apiID)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, r := range api.Routes {
		names = append(names, r.Function)
	}
	if api.Authorizer != nil {
		names = append(names, api.Authorizer.Function)
	}
	return slices.Compact(slices.Sorted(slices.Values(names))), nil
}
