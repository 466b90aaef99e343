package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/localfn"
	"github.com/plantstore/plantstore/samlocal/localserve"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// invoke is samlocal invoke: a function's executable, built for this
// machine as sam build builds it, run on one event on a local Lambda
// Runtime API, the way sam local invoke runs it in a container. The
// function's answer, alone, goes to stdout; its logs to stderr.
//
// Its environment is what SAM CLI would give it (samtemplate.ResolveEnv):
// only the variables the template declares for it, each from the
// template, the shell, the --env-vars file's "Parameters" and its entry
// for the function, in rising priority; region and credentials from the
// AWS variables of the shell or SAM's placeholders. A function whose
// environment names a table of the template gets the local dynalite
// (dynamoemu.Local).
func invoke(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("samlocal invoke", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	f.define(fs, false, 0)
	var eventPath string
	for _, name := range []string{"e", "event"} {
		fs.StringVar(&eventPath, name, "", "the event: a JSON file, or - for stdin (default: {})")
	}
	fs.BoolVar(&f.noEvent, "no-event", false, "no event: {} (SAM CLI's, deprecated; the default)")
	positional, err := f.parse(fs, "invoke", args, stderr)
	if err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	event := []byte("{}")
	switch eventPath {
	case "":
	case "-":
		event, err = io.ReadAll(os.Stdin)
	default:
		event, err = os.ReadFile(eventPath)
	}
	if err != nil {
		return err
	}
	fnCfg := cfg.FnConfig(lookupEnv, termsafe.Escaper(stderr))
	tpl, err := fnCfg.Load()
	if err != nil {
		return err
	}
	if err := localserve.Notes(tpl, stderr); err != nil {
		return err
	}
	fns, _, err := tpl.GoFunctions()
	if err != nil {
		return err
	}
	// samcli/commands/local/cli_common/invoke_context.py function_identifier
	var function string
	switch {
	case len(positional) > 1:
		return fmt.Errorf("invoke takes one function logical ID, not %v", positional)
	case len(positional) == 1:
		function = positional[0]
	case len(fns) == 1:
		function = fns[0].ID
	default:
		return fmt.Errorf("you must provide a function logical ID when there are more than one functions in your template; possible options in your template: %v", samtemplate.FunctionIDs(fns))
	}
	if _, err := tpl.Function(function); err != nil {
		return err
	}
	if cfg.DebugAddr != "" {
		cfg.Debug = function
		fnCfg.Debug = function
	}
	if err := localserve.BuildFor(ctx, cfg, tpl, []string{function}, stderr); err != nil {
		return err
	}
	set, err := localfn.PrepareTemplate(ctx, tpl, fnCfg, []string{function})
	if err != nil {
		return err
	}
	defer set.Close()
	spec := set.Specs[function]
	timeout := spec.Timeout

	rt, err := lambdaemu.Start()
	if err != nil {
		return err
	}
	defer rt.Close()
	// The function's lines go to stderr escaped: it may log what the
	// event carries.
	output := termsafe.Escaper(stderr)
	var fn *lambdaemu.Function
	if spec.Debug != nil {
		// No timeout while debugging, as SAM CLI (lambdaemu.Spec).
		timeout = 24 * time.Hour
		fn, err = rt.RunDebug(*spec.Debug, spec.Bootstrap, spec.Env, output)
		if err == nil { // Delve has said it listens
			fmt.Fprintf(stderr, "Debugging %s: Delve listens on %s and holds the invocation until a debugger continues it (dlv connect %s)\n", function, spec.Debug.Addr, spec.Debug.Addr)
		}
	} else {
		fn, err = rt.Run(spec.Bootstrap, spec.Env, output)
	}
	if err != nil {
		return fmt.Errorf("%s did not start: %w", function, err)
	}
	defer fn.Stop()

	type answer struct {
		res lambdaemu.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		ictx, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
		defer cancel()
		res, err := rt.Invoke(ictx, event, timeout)
		done <- answer{res, err}
	}()
	select {
	case doc := <-rt.InitError():
		return initFailed(stdout, function, doc)
	case <-fn.Exited():
		// A failed init posts its document, then exits: the document is
		// there before the exit, and says why.
		select {
		case doc := <-rt.InitError():
			return initFailed(stdout, function, doc)
		default:
		}
		return fmt.Errorf("the function exited: %v", fn.Err())
	case a := <-done:
		if a.err != nil {
			return a.err
		}
		out := a.res.Payload
		if a.res.Error != nil {
			out = a.res.Error // e.g. an authorizer's {"errorMessage":"Unauthorized",...}
		}
		return printAnswer(stdout, out)
	}
}

// initFailed prints the document function posted to /runtime/init/error
// as sam local invoke prints it, as the answer on stdout: the Runtime
// Interface Emulator that SAM runs answers the invocation with that body
// (aws-lambda-runtime-interface-emulator,
// internal/lambda/rapi/handler/initerror.go) and SAM writes the answer to
// stdout (samcli/local/docker/container.py, wait_for_result). SAM then
// exits 0 (samcli/commands/local/invoke/cli.py raises nothing for a
// function's error); samlocal invoke returns an error, so exits 1, as it does
// when the function exits or times out: the function never ran on the
// event, and a script or make must not take the document for its answer.
func initFailed(stdout io.Writer, function string, doc []byte) error {
	if err := printAnswer(stdout, doc); err != nil {
		return err
	}
	var e struct{ ErrorType, ErrorMessage string }
	if json.Unmarshal(doc, &e) != nil {
		return fmt.Errorf("%s: init failed: %s", function, termsafe.Escape(string(doc)))
	}
	return fmt.Errorf("%s: init failed: %s", function, termsafe.Escape(e.ErrorType+": "+e.ErrorMessage))
}

// printAnswer prints a function's answer on stdout, indented when it is
// JSON, escaped (termsafe.Escape) line by line: JSON leaves DEL and the C1
// controls (U+0080 to U+009F, which a terminal may obey) as they are, and
// Escape writes them as \u escapes, so the answer stays the same JSON.
func printAnswer(stdout io.Writer, out []byte) error {
	var pretty any
	if json.Unmarshal(out, &pretty) == nil {
		out, _ = json.MarshalIndent(pretty, "", "  ")
	}
	_, err := fmt.Fprintf(termsafe.Escaper(stdout), "%s\n", out)
	return err
}
