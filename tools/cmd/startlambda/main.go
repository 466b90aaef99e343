// Command startlambda is `make start-lambda`: the Lambda Invoke API without
// Docker, as `sam local start-lambda` serves it (tools/invokeapi), in front of
// the real bootstraps of every function of template.yaml on local Lambda
// Runtime APIs, each with the environment SAM CLI would give it from the
// -env file (tools/localfn). Functions are named by their logical ids.
//
// It listens on 127.0.0.1:$PORT (3001, SAM's default for start-lambda) and
// prints "listening on URL" and an `aws lambda invoke` line to try it.
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
	"time"

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
	getenv := func(k string) string { v, _ := lookupEnv(k); return v }
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	flags := localfn.AddFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if flags.Bootstraps == "" {
		return errors.New("-bootstraps is required (make start-lambda builds them)")
	}
	port, err := devserver.Port(getenv, 3001)
	if err != nil {
		return err
	}
	tpl, err := samtemplate.Load(flags.Template)
	if err != nil {
		return err
	}
	names := tpl.Functions()
	cfg := flags.Config(lookupEnv, stderr)
	fns, err := localfn.PrepareTemplate(ctx, tpl, cfg, names)
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
		r := &localfn.Reloader{Root: flags.Root(), Config: cfg, Functions: func(t *samtemplate.Template) ([]string, error) { return t.Functions(), nil }, Next: next, Out: stdout}
		if err := r.Start(ctx, sw, fns); err != nil {
			return err
		}
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler:           sw,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       60 * time.Second,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	url := "http://" + ln.Addr().String()
	fmt.Fprintf(stdout, "Plant Store start-lambda listening on %s (functions of %s: %s)\n", url, flags.Template, strings.Join(names, ", "))
	fmt.Fprintf(stdout, "Try:\naws lambda invoke --endpoint-url %s --function-name CreatePlantFunction --payload fileb://events/createplant-valid.json out.json\n", url)
	return devserver.Serve(ctx, srv, ln, stdout, "Plant Store start-lambda")
}
