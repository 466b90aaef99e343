// Command startlambda is `make start-lambda`: the Lambda Invoke API without
// Docker, as `sam local start-lambda` serves it (tools/invokeapi), in front of
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
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/plantstore/plantstore/internal/devserver"
	"github.com/plantstore/plantstore/tools/invokeapi"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/runtimeapi"
	"github.com/plantstore/plantstore/tools/samtemplate"
)

func main() {
	proc.Main("start-lambda", func(ctx context.Context) error { return run(ctx, os.Args, os.LookupEnv, os.Stdout, os.Stderr) })
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
	port     int
	timeouts devserver.Timeouts
}

func loadConfig(args []string, lookupEnv func(string) (string, bool), stderr io.Writer) (config, error) {
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{flags: localfn.AddFlags(fs), timeouts: devserver.ToolTimeouts()}
	if err := fs.Parse(args[1:]); err != nil {
		return cfg, err
	}
	if cfg.flags.Bootstraps == "" {
		return cfg, errors.New("-bootstraps is required (make start-lambda builds them)")
	}
	var err error
	cfg.port, err = devserver.Port(getenv, 3001)
	return cfg, err
}

// serve runs the Invoke API that cfg describes until ctx ends.
func serve(ctx context.Context, cfg config, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	flags := cfg.flags
	tpl, err := samtemplate.Load(flags.Template)
	if err != nil {
		return err
	}
	names := tpl.Functions()
	fnCfg := flags.Config(lookupEnv, stderr)
	fns, err := localfn.PrepareTemplate(ctx, tpl, fnCfg, names)
	if err != nil {
		return err
	}
	defer fns.Close()
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	next := func(set *localfn.Set) (localfn.Generation, error) {
		functions := runtimeapi.NewFunctions(set.Specs, stderr)
		return localfn.Generation{Handler: invokeapi.New(functions, set.Template.Functions(), logger), Close: functions.Close}, nil
	}
	first, _ := next(fns)
	sw := localfn.NewSwapper(first)
	defer sw.Close()
	if flags.Watch {
		r := &localfn.Reloader{Root: flags.Root(), Config: fnCfg, Functions: func(t *samtemplate.Template) ([]string, error) { return t.Functions(), nil }, Next: next, Out: stdout}
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
		invokeapi.Refuse(w, reason)
	}
	srv := cfg.timeouts.Server(devserver.LoopbackOnly(sw, flags.AllowHosts, refuse), logger)
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Plant Store start-lambda listening on %s (functions of %s: %s)\n", url, flags.Template, strings.Join(names, ", "))
	flags.DebugNote(stdout)
	fmt.Fprintf(stdout, "Try:\naws lambda invoke --endpoint-url %s --function-name CreatePlantFunction --payload fileb://events/createplant-valid.json out.json\n", url)
	return devserver.Serve(ctx, srv, ln, stdout, "Plant Store start-lambda")
}
