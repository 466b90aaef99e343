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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/devserver"
	"github.com/plantstore/plantstore/tools/gateway"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/runtimeapi"
	"github.com/plantstore/plantstore/tools/samtemplate"
)

func main() {
	proc.Main("start-api", func(ctx context.Context) error { return run(ctx, os.Args, os.LookupEnv, os.Stdout, os.Stderr) })
}

func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	cfg, err := loadConfig(args, lookupEnv, stderr)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, lookupEnv, stdout, stderr)
}

// config is what the flags and PORT say, read once.
type config struct {
	flags    *localfn.Flags
	apiID    string
	port     int
	timeouts devserver.Timeouts
}

func loadConfig(args []string, lookupEnv func(string) (string, bool), stderr io.Writer) (config, error) {
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{flags: localfn.AddFlags(fs), timeouts: devserver.ToolTimeouts()}
	fs.StringVar(&cfg.apiID, "api", "PlantsApi", "logical ID of the AWS::Serverless::Api to serve")
	if err := fs.Parse(args[1:]); err != nil {
		return cfg, err
	}
	if cfg.flags.Bootstraps == "" {
		return cfg, errors.New("-bootstraps is required (make start-api builds them)")
	}
	var err error
	cfg.port, err = devserver.Port(getenv, 3000)
	return cfg, err
}

// serve runs the gateway that cfg describes until ctx ends.
func serve(ctx context.Context, cfg config, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	flags, apiID := cfg.flags, cfg.apiID
	logger := slog.New(slog.NewJSONHandler(stderr, nil))

	tpl, err := samtemplate.Load(flags.Template)
	if err != nil {
		return err
	}
	api, err := tpl.RestAPI(apiID)
	if err != nil {
		return err
	}
	fnCfg := flags.Config(lookupEnv, stderr)
	served := func(tpl *samtemplate.Template) ([]string, error) { return servedFunctions(tpl, apiID) }
	names, err := served(tpl)
	if err != nil {
		return err
	}
	fns, err := localfn.PrepareTemplate(ctx, tpl, fnCfg, names)
	if err != nil {
		return err
	}
	defer fns.Close()
	envs := fns.Env
	// A generation is the gateway read from the template and the functions
	// it invokes; WATCH=1 makes a new one on each change. current is the
	// newest gateway, whose gateway responses answer refused requests.
	var current atomic.Pointer[gateway.Gateway]
	next := func(set *localfn.Set) (localfn.Generation, error) {
		api, err := set.Template.RestAPI(apiID)
		if err != nil {
			return localfn.Generation{}, err
		}
		functions := runtimeapi.NewFunctions(set.Specs, stderr)
		gw, err := gateway.New(api, functions, time.Now, logger)
		if err != nil {
			functions.Close()
			return localfn.Generation{}, err
		}
		if flags.Debug != "" {
			// A function stopped at a breakpoint is not a timed-out
			// integration: no timeout while debugging (runtimeapi.Spec).
			gw.IntegrationTimeout = 24 * time.Hour
		}
		current.Store(gw)
		return localfn.Generation{Handler: gw, Close: functions.Close}, nil
	}
	first, err := next(fns)
	if err != nil {
		return err
	}
	sw := localfn.NewSwapper(first)
	defer sw.Close()
	if flags.Watch {
		r := &localfn.Reloader{Root: flags.Root(), Config: fnCfg, Functions: served, Next: next, Out: stdout}
		if err := r.Start(ctx, sw, fns); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(cfg.port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	refuse := func(w http.ResponseWriter, r *http.Request, reason string) {
		logger.Warn("refused a request a web page may have sent", "reason", reason, "host", r.Host, "origin", r.Header.Get("Origin"))
		current.Load().Refuse(w)
	}
	srv := cfg.timeouts.Server(devserver.LoopbackOnly(sw, flags.AllowHosts, refuse), logger)
	srv.MaxHeaderBytes = gateway.MaxHeaderBytes // net/http adds 4 KiB of slack; the gateway checks the exact quota
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Plant Store start-api listening on %s (%s from %s, stage %s; no stage prefix in paths, as under sam local start-api)\n", url, apiID, flags.Template, api.Stage)
	flags.DebugNote(stdout)
	if api.Authorizer != nil {
		if err := printToken(stdout, envs[api.Authorizer.Function], getenv("TOKEN_SCOPE"), url); err != nil {
			return err
		}
	}
	return devserver.Serve(ctx, srv, ln, stdout, "Plant Store start-api")
}

// printToken prints a token that the authorizer accepts, when its
// environment holds an HS256 secret, and a curl line to try it. Its scope is
// scope, else the authorizer's AUTH_REQUIRED_SCOPE.
func printToken(w io.Writer, env map[string]string, scope, url string) error {
	secret := env["AUTH_HS256_SECRET"]
	if secret == "" {
		fmt.Fprintln(w, "The authorizer has no HS256 secret in its environment; bring a token its JWKS accepts.")
		return nil
	}
	spec := auth.TokenSpec{Issuer: env["AUTH_ISSUER"], Audience: env["AUTH_AUDIENCE"], Subject: "local-developer", Scope: cmp.Or(scope, env["AUTH_REQUIRED_SCOPE"])}
	return devserver.PrintToken(w, []byte(secret), spec, url, ", signed with the authorizer's AUTH_HS256_SECRET from the env file", time.Now())
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
