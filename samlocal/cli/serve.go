package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore/samlocal/gateway"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/localserve"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/trace"
)

// server is start-api or start-lambda: its name, SAM CLI's default port,
// and the tool it puts before the functions.
type server struct {
	name string
	port int
	tool func(cfg localserve.Config, lookupEnv func(string) (string, bool), stdout io.Writer) localserve.Tool
}

var (
	startAPI    = server{"start-api", 3000, apiTool}
	startLambda = server{"start-lambda", 3001, lambdaTool}
)

func serve(ctx context.Context, s server, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	cfg, err := ServerConfig(s.name, args, stderr)
	if err != nil {
		return err
	}
	return Serve(ctx, s.name, cfg, lookupEnv, stdout, stderr)
}

var servers = map[string]server{startAPI.name: startAPI, startLambda.name: startLambda}

// ServerConfig reads the arguments of start-api or start-lambda (name),
// flags' errors to stderr.
func ServerConfig(name string, args []string, stderr io.Writer) (localserve.Config, error) {
	s := servers[name]
	fs := flag.NewFlagSet("samlocal "+s.name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	f.define(fs, true, s.port)
	positional, err := f.parse(fs, s.name, args, stderr)
	if err != nil {
		return localserve.Config{}, err
	}
	if s.name == "start-api" && len(positional) > 0 {
		return localserve.Config{}, fmt.Errorf("start-api takes no function names (%v): it serves every API of the template", positional)
	}
	cfg, err := f.config()
	cfg.Functions = positional
	return cfg, err
}

// Serve runs start-api or start-lambda (name) as cfg says until ctx ends.
func Serve(ctx context.Context, name string, cfg localserve.Config, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	return localserve.Command{Name: name, Tool: servers[name].tool}.Serve(ctx, cfg, lookupEnv, stdout, stderr)
}

// lambdaTool serves the Lambda Invoke API, as sam local start-lambda does
// (lambdaemu.InvokeAPI), in front of the template's functions, or those
// named.
func lambdaTool(cfg localserve.Config, _ func(string) (string, bool), _ io.Writer) localserve.Tool {
	return localserve.Tool{
		Name: "samlocal start-lambda",
		Functions: func(tpl *samtemplate.Template) ([]string, error) {
			fns, _, err := tpl.GoFunctions()
			if err != nil {
				return nil, err
			}
			ids := samtemplate.FunctionIDs(fns)
			if len(cfg.Functions) == 0 {
				return ids, nil
			}
			// samcli/commands/local/cli_common/invoke_context.py
			// _validate_function_logical_ids
			var missing []string
			for _, id := range cfg.Functions {
				if !slices.Contains(ids, id) {
					missing = append(missing, id)
				}
			}
			if len(missing) > 0 {
				return nil, fmt.Errorf("unable to find Function(s) with name(s) '%s' (the template's Go functions: %v)", strings.Join(missing, ", "), ids)
			}
			return cfg.Functions, nil
		},
		Front: func(set *localfn.Set, fns *lambdaemu.Functions, logger *slog.Logger) (http.Handler, error) {
			return lambdaemu.NewInvokeAPI(fns, set.Names(), logger), nil
		},
		Refuse: lambdaemu.Refuse,
		Describe: func(set *localfn.Set) string {
			return fmt.Sprintf("functions of %s: %s", cfg.Template, strings.Join(set.Names(), ", "))
		},
		Try: func(w io.Writer, url string, set *localfn.Set) error {
			_, err := fmt.Fprintf(w, "Try:\naws lambda invoke --endpoint-url %s --function-name %s --payload '{}' out.json\n", url, set.Names()[0])
			return err
		},
	}
}

// apiTool serves every API of the template as API Gateway would
// (gateway), on one port and one path space as sam local start-api serves
// them, in front of the functions of their routes and authorizers; what it
// does not serve of them is said at start (samtemplate.APIs' notes).
func apiTool(cfg localserve.Config, lookupEnv func(string) (string, bool), stdout io.Writer) localserve.Tool {
	// current is the newest generation's gateway, which answers refused
	// requests.
	var current atomic.Pointer[gateway.Gateway]
	// Every request is traced: one line each on stdout, and the page
	// under /_samlocal/ with their steps and log lines.
	rec := trace.NewRecorder(stdout)
	rec.Title = "samlocal start-api · " + cfg.Template
	return localserve.Tool{
		Trace: rec,
		Name:  "samlocal start-api",
		Functions: func(tpl *samtemplate.Template) ([]string, error) {
			apis, _, err := tpl.APIs()
			if err != nil {
				return nil, err
			}
			names := apiFunctions(apis)
			if len(names) == 0 {
				// samcli/commands/local/start_api/cli.py: NoApisDefined.
				return nil, fmt.Errorf("%s does not have any APIs connected to Go functions (Api or HttpApi events, OpenAPI bodies or API Gateway resources whose integration is a Go function of the template)", cfg.Template)
			}
			return names, nil
		},
		Notes: func(tpl *samtemplate.Template) []string {
			_, notes, _ := tpl.APIs() // its error stopped Functions already
			return notes
		},
		Front: func(set *localfn.Set, fns *lambdaemu.Functions, logger *slog.Logger) (http.Handler, error) {
			apis, _, err := set.Template.APIs()
			if err != nil {
				return nil, err
			}
			gw, err := gateway.NewAll(apis, fns, time.Now, logger)
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
			apis, _, _ := set.Template.APIs() // read by Functions already
			var parts []string
			for _, a := range apis {
				kind := ""
				if a.HTTP {
					kind = "HTTP API, "
				}
				parts = append(parts, fmt.Sprintf("%s (%sstage %s)", a.ID, kind, a.StageName()))
			}
			return fmt.Sprintf("%s from %s; no stage prefix in paths, as under sam local start-api", strings.Join(parts, ", "), cfg.Template)
		},
		Try: func(w io.Writer, url string, set *localfn.Set) error {
			apis, _, _ := set.Template.APIs()
			explorer, err := newExplorer(lookupEnv)
			if err != nil {
				return err
			}
			rec.Explorer = explorer
			// SAM CLI's "Mounting <function> at http://host:port<path>
			// [<methods>]" lines (samcli/commands/local/lib/local_api_service.py
			// _make_routing_list), one per route.
			for _, a := range apis {
				for _, r := range a.Routes {
					target := r.Function
					if target == "" {
						target = "(not served)"
					}
					fmt.Fprintf(w, "Mounting %s at %s%s [%s] (%s)\n", target, url, r.Path, strings.Join(routeMethods(r), ", "), a.ID)
				}
			}
			fmt.Fprintf(w, "Requests, each with its steps and log lines: %s (API explorer: %s)\n", rec.Link(url, "requests"), rec.Link(url, "explorer"))
			route := tryRoute(apis)
			auth := ""
			if explorer.Token != "" {
				fmt.Fprintf(w, "Token (from SAMLOCAL_TOKEN):\n%s\n", explorer.Token)
				auth = fmt.Sprintf(" -H 'Authorization: Bearer %s'", explorer.Token)
			}
			body := ""
			for _, op := range explorer.Operations {
				if op.Method == route.Method && op.Path == route.Path && op.Example != "" {
					body = fmt.Sprintf(" -H 'Content-Type: application/json' -d '%s'", op.Example)
				}
			}
			method, path := route.Method, route.Path
			if method == "ANY" {
				method = "GET"
			}
			if path == samtemplate.DefaultRoute {
				path = "/"
			}
			_, err = fmt.Fprintf(w, "Try:\ncurl -i -X %s %s%s%s%s\n", method, url, path, auth, body)
			return err
		},
		MaxHeaderBytes: gateway.MaxHeaderBytes, // net/http adds 4 KiB of slack; the gateway checks the exact quota
	}
}

// apiFunctions are the Go functions the APIs run: their routes' and their
// authorizers', sorted.
func apiFunctions(apis []*samtemplate.API) []string {
	var names []string
	for _, a := range apis {
		for _, r := range a.Routes {
			if r.Function != "" {
				names = append(names, r.Function)
			}
			if r.Authorizer != nil && r.Authorizer.Function != "" {
				names = append(names, r.Authorizer.Function)
			}
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(names)))
}

// routeMethods are the methods a route takes, ANY's spelled out.
func routeMethods(r samtemplate.Route) []string {
	if r.Method != "ANY" {
		return []string{r.Method}
	}
	var out []string
	for _, m := range samtemplate.AnyMethods() {
		if r.Takes(m) {
			out = append(out, m)
		}
	}
	return out
}

// tryRoute is the route the banner's curl line calls: the first served
// one with a literal path, else the first served one.
func tryRoute(apis []*samtemplate.API) samtemplate.Route {
	var first *samtemplate.Route
	for _, a := range apis {
		for i, r := range a.Routes {
			if r.Function == "" {
				continue
			}
			if !strings.Contains(r.Path, "{") && r.Path != samtemplate.DefaultRoute {
				return r
			}
			if first == nil {
				first = &a.Routes[i]
			}
		}
	}
	if first != nil {
		return *first
	}
	return apis[0].Routes[0]
}

// newExplorer is the explorer of the page: the operations of the OpenAPI
// document SAMLOCAL_OPENAPI names, and the token SAMLOCAL_TOKEN holds,
// which it sends (and the banner's curl line with it). samlocal signs no
// token of its own: what an authorizer accepts is the project's to know.
func newExplorer(lookupEnv func(string) (string, bool)) (trace.Explorer, error) {
	var ex trace.Explorer
	ex.Token, _ = lookupEnv("SAMLOCAL_TOKEN")
	if path, ok := lookupEnv("SAMLOCAL_OPENAPI"); ok && path != "" {
		doc, err := os.ReadFile(path)
		if err != nil {
			return ex, err
		}
		if ex.Operations, err = trace.ParseOpenAPI(doc); err != nil {
			return ex, fmt.Errorf("%s: %w", path, err)
		}
	}
	return ex, nil
}
