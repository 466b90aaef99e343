// Package localserve is the skeleton of make start-api and make
// start-lambda: read the shared flags and PORT (Parse), prepare the
// template's functions on local Lambda Runtime APIs (localfn), put the
// tool's own front (the gateway, the Invoke API) before them, serve it on
// loopback with devserver's bounds, and with WATCH=1 rebuild and swap in a
// new generation on every change (Reloader, Swapper). make run WATCH=1
// swaps its processes with the same Swapper.
package localserve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/plantstore/plantstore/samlocal/devserver"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/streams"
	"github.com/plantstore/plantstore/samlocal/termsafe"
	"github.com/plantstore/plantstore/samlocal/trace"
)

// Tool is what make start-api or make start-lambda puts in front of the
// functions it runs.
type Tool struct {
	Name string // e.g. "samlocal start-api": it is listening, it stopped

	// Functions are the functions of the template that the tool runs.
	Functions func(*samtemplate.Template) ([]string, error)
	// Notes, when set, are what the tool does not serve of the template
	// beside its functions (start-api: the APIs' parts), said at start
	// one line each as Notes says the functions'.
	Notes func(*samtemplate.Template) []string
	// Front is the handler in front of one generation's functions; the
	// first and each reload get their own.
	Front func(set *localfn.Set, fns *lambdaemu.Functions, logger *slog.Logger) (http.Handler, error)
	// Refuse answers a request devserver.LoopbackOnly refuses, in the
	// tool's own shape.
	Refuse func(w http.ResponseWriter, reason string)
	// Describe follows "listening on URL" in the banner; Try prints how
	// to try the tool.
	Describe func(set *localfn.Set) string
	Try      func(w io.Writer, url string, set *localfn.Set) error

	MaxHeaderBytes int // 0 keeps cfg.Timeouts'

	// Trace, when set, records every request (make start-api): the
	// functions' output passes through it, their DynamoDB calls pass its
	// proxy, and it serves its page beside the front.
	Trace *trace.Recorder
}

// Command is samlocal start-api or samlocal start-lambda.
type Command struct {
	Name string                                                                         // e.g. "start-api"
	Tool func(cfg Config, lookupEnv func(string) (string, bool), stdout io.Writer) Tool // stdout: what the tool prints to
}

// Serve runs the command's tool as cfg says until ctx ends.
func (c Command) Serve(ctx context.Context, cfg Config, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	// The repository is a pull request's data, and its template and env
	// file reach the banner (an authorizer's scope, a stage, the
	// functions' names): every line is escaped, as git writes a path with
	// control characters (core.quotePath, git-config(1): "control
	// characters are always quoted"), by the one rule for what requests
	// carry (termsafe.Escape).
	stdout = termsafe.Escaper(stdout)
	tool := c.Tool(cfg, lookupEnv, stdout)
	fnCfg := cfg.FnConfig(lookupEnv, termsafe.Escaper(stderr)) // the CodeDeploy recorder prints what the hook was told
	tpl, err := fnCfg.Load()
	if err != nil {
		return err
	}
	// The functions of the template's DynamoDB event sources run beside
	// the tool's: the stream poller invokes them.
	functions := withConsumers(tool.Functions, cfg.Functions)
	names, err := functions(tpl)
	if err != nil {
		return err
	}
	if err := Notes(tpl, stderr); err != nil {
		return err
	}
	if err := EventNotes(tpl, cfg.Functions, stderr); err != nil {
		return err
	}
	if tool.Notes != nil {
		for _, n := range tool.Notes(tpl) {
			fmt.Fprintf(termsafe.Escaper(stderr), "samlocal: %s\n", n)
		}
	}
	if err := BuildFor(ctx, cfg, tpl, names, stderr); err != nil {
		return err
	}
	set, err := localfn.PrepareTemplate(ctx, tpl, fnCfg, names)
	if err != nil {
		return err
	}
	defer set.Close()
	// What requests carry reaches the terminal through the tool's log
	// lines (a refused request's Host and Origin, a function's answer) and
	// the functions' own lines: each line is escaped (termsafe.Escape), as
	// JSON leaves DEL and the C1 controls as they are.
	logger := slog.New(slog.NewJSONHandler(termsafe.Escaper(stderr), nil))
	// A generation is the tool's front on one prepared set of functions;
	// WATCH=1 makes a new one on each change.
	output := termsafe.Escaper(stderr)
	if tool.Trace != nil {
		output = tool.Trace.Logs(stderr) // escapes each line too
	}
	// One poller for the run: each generation hands it its functions, and
	// it goes on where it was (streams.Poller.Serve).
	poller := &streams.Poller{Out: stdout}
	next := func(set *localfn.Set) (Generation, error) {
		stopTrace := func() {}
		if tool.Trace != nil {
			var err error
			if stopTrace, err = traceDynamoDB(tool.Trace, set); err != nil {
				return Generation{}, err
			}
		}
		fns := lambdaemu.NewFunctions(set.Specs, output)
		fns.Observer = streams.Observer(trace.Invocations{})
		closeAll := func() { fns.Close(); stopTrace() }
		if cfg.Eager {
			if err := fns.StartAll(); err != nil {
				closeAll()
				return Generation{}, err
			}
		}
		h, err := tool.Front(set, fns, logger)
		if err != nil {
			closeAll()
			return Generation{}, err
		}
		if err := servePoller(ctx, poller, set, fns, cfg.Functions); err != nil {
			closeAll()
			return Generation{}, err
		}
		return Generation{Handler: h, Close: closeAll}, nil
	}
	if cfg.Debug != "" {
		// Before the functions start (--warm-containers EAGER starts
		// Delve with them) and the banner says where Delve will listen:
		// another process there would take a debugger's connection.
		if err := (lambdaemu.Debug{Addr: cfg.DebugAddr}).CheckFree(); err != nil {
			return err
		}
	}
	first, err := next(set)
	if err != nil {
		return err
	}
	sw := NewSwapper(first)
	defer sw.Close()
	defer poller.Stop() // before the functions it invokes
	if cfg.Watch {
		r := &Reloader{Root: filepath.Dir(cfg.Template), Config: fnCfg, Functions: functions, Notes: tool.Notes, Next: next, Out: stdout, Replace: cfg.Debug != ""}
		reloaded, err := r.Start(ctx, sw, set)
		if err != nil {
			return err
		}
		// A reload under way ends (its build's make has exited) before
		// the functions stop and before the tool's temporary folders go.
		defer func() { <-reloaded }()
	}

	refuse := func(w http.ResponseWriter, r *http.Request, reason string) {
		logger.Warn("refused a request a web page may have sent", "reason", reason, "host", r.Host, "origin", r.Header.Get("Origin"))
		tool.Refuse(w, reason)
	}
	var front http.Handler = sw
	if tool.Trace != nil {
		front = tool.Trace.Handler(sw)
	}
	timeouts := cfg.Timeouts
	if tool.MaxHeaderBytes != 0 {
		timeouts.MaxHeaderBytes = tool.MaxHeaderBytes
	}
	srv := devserver.Server{
		Name:     tool.Name,
		Addr:     net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port)),
		Handler:  devserver.LoopbackOnly(front, cfg.AllowHosts, refuse),
		Timeouts: timeouts,
		Logger:   logger,
	}
	return srv.Run(ctx, stdout, func(url string) error {
		fmt.Fprintf(stdout, "%s listening on %s (%s)\n", tool.Name, url, tool.Describe(set))
		cfg.DebugNote(stdout)
		return tool.Try(stdout, url, set)
	})
}

// traceDynamoDB points every function of set whose environment names a
// DynamoDB endpoint at a recording proxy to it (trace.Recorder.DynamoDB)
// that answers only the function's own credentials; the returned func
// stops the proxies.
func traceDynamoDB(rec *trace.Recorder, set *localfn.Set) (func(), error) {
	var stops []func()
	stop := func() {
		for _, s := range stops {
			s()
		}
	}
	for fn, env := range set.Env {
		target := env["AWS_ENDPOINT_URL_DYNAMODB"]
		if target == "" {
			continue
		}
		creds := aws.Credentials{AccessKeyID: env["AWS_ACCESS_KEY_ID"], SecretAccessKey: env["AWS_SECRET_ACCESS_KEY"], SessionToken: env["AWS_SESSION_TOKEN"]}
		url, closeFn, err := rec.DynamoDB(target, creds)
		if err != nil {
			stop()
			return nil, err
		}
		stops = append(stops, closeFn)
		spec := set.Specs[fn]
		spec.Env = append(slices.Clone(spec.Env), "AWS_ENDPOINT_URL_DYNAMODB="+url)
		set.Specs[fn] = spec
	}
	return stop, nil
}

// withConsumers is the tool's functions and those of the template's
// DynamoDB event sources, or of those among only when start-lambda names
// the functions it serves.
func withConsumers(toolFunctions func(*samtemplate.Template) ([]string, error), only []string) func(*samtemplate.Template) ([]string, error) {
	return func(tpl *samtemplate.Template) ([]string, error) {
		names, err := toolFunctions(tpl)
		if err != nil {
			return nil, err
		}
		evs, _, err := streamEvents(tpl, only)
		if err != nil {
			return nil, err
		}
		names = append(names, samtemplate.StreamConsumers(evs)...)
		return slices.Compact(slices.Sorted(slices.Values(names))), nil
	}
}

// streamEvents are the template's DynamoDB event sources that the run
// polls: of every Go function, or of those among only; the others are
// said in notes.
func streamEvents(tpl *samtemplate.Template, only []string) (evs []samtemplate.StreamEvent, notes []string, err error) {
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		return nil, nil, err
	}
	all, notes, err := tpl.StreamEvents(fns)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range all {
		if len(only) > 0 && !slices.Contains(only, e.Function) {
			notes = append(notes, fmt.Sprintf("%s: %s is not polled: start-lambda serves only %s", e.Function, e.Event, strings.Join(only, ", ")))
			continue
		}
		evs = append(evs, e)
	}
	return evs, notes, nil
}

// servePoller hands the poller the generation's functions and the
// template's DynamoDB event sources, on the local emulator's streams.
func servePoller(ctx context.Context, poller *streams.Poller, set *localfn.Set, fns *lambdaemu.Functions, only []string) error {
	evs, _, err := streamEvents(set.Template, only)
	if err != nil {
		return err
	}
	if len(evs) > 0 {
		// The tables are made before their streams are read, those a
		// reload adds too.
		srv, err := set.DynamoDB(ctx)
		if err != nil {
			return err
		}
		// The emulator serves every generation: its client is taken
		// once, before any mapping polls.
		if poller.Streams == nil {
			poller.Streams = srv.Streams()
		}
	}
	poller.Serve(ctx, evs, fns)
	return nil
}

// EventNotes prints, one line each, what the template's events hold that
// samlocal does not serve (samtemplate.StreamEvents, EventNotes): the
// event types nothing serves, the DynamoDB events left out and why.
func EventNotes(tpl *samtemplate.Template, only []string, w io.Writer) error {
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		return err
	}
	_, notes, err := streamEvents(tpl, only)
	if err != nil {
		return err
	}
	for _, n := range append(notes, tpl.EventNotes(fns)...) {
		fmt.Fprintf(termsafe.Escaper(w), "samlocal: %s\n", n)
	}
	return nil
}

// Notes prints, one line each, what the template holds that samlocal does
// not serve (samtemplate.GoFunctions): nothing is left out in silence.
func Notes(tpl *samtemplate.Template, w io.Writer) error {
	_, notes, err := tpl.GoFunctions()
	for _, n := range notes {
		fmt.Fprintf(termsafe.Escaper(w), "samlocal: %s\n", n)
	}
	return err
}

// BuildFor builds the functions names for this machine into cfg.BuildDir
// (localfn.Build), unless cfg says to run what is there; a failed build
// is an error that holds the build's output.
func BuildFor(ctx context.Context, cfg Config, tpl *samtemplate.Template, names []string, stderr io.Writer) error {
	if cfg.SkipBuild || cfg.Bootstrap != nil {
		return nil
	}
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		return err
	}
	var build []samtemplate.Function
	for _, f := range fns {
		if slices.Contains(names, f.ID) {
			build = append(build, f)
		}
	}
	out, err := localfn.Build(ctx, cfg.BuildDir, build, cfg.Debug)
	if out != "" {
		_, _ = io.WriteString(termsafe.Escaper(stderr), out)
	}
	return err
}
