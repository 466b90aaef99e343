// Command invoke runs a function's real bootstrap on one event, the way `sam
// local invoke` does but without Docker: a local Lambda Runtime API hands the
// event to the binary and prints what it answered. `make invoke` builds the
// binary for this machine and calls it.
//
// The function's environment is what SAM CLI would give it
// (samtemplate.ResolveEnv): only the variables template.yaml declares for it,
// each from the template, the shell, the -env file's "Parameters" and its
// entry for the function, in rising priority; region and credentials from the
// AWS variables of the shell or SAM's placeholders. So a fixture that passes
// here passes under `sam local invoke --env-vars` with the same file.
// A function whose resolved AWS_ENDPOINT_URL_DYNAMODB is declared and empty
// gets the local dynalite of dynamoemu.Local, keeping its data in -data
// (.plantstore/dynalite), as if the env file had named it, and the
// credentials that dynalite answers. While another run holds -data, that
// dynalite keeps its data in memory, and a line on stderr says so.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/plantstore/plantstore/internal/lambdaemu"
	"github.com/plantstore/plantstore/tools/localfn"
	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/trace"
)

func main() {
	proc.Main("invoke", func(ctx context.Context) error { return run(ctx, os.Args, os.LookupEnv, os.Stdout, os.Stderr) })
}

func run(ctx context.Context, args []string, lookupEnv func(string) (string, bool), stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	function := fs.String("function", "", "logical ID in template.yaml (CreatePlantFunction, AuthorizerFunction)")
	bootstrap := fs.String("bootstrap", "", "path of the function's bootstrap binary")
	eventPath := fs.String("event", "", "event file, e.g. events/createplant-valid.json")
	envPath := fs.String("env", "events/env.json", "environment per function, in SAM's --env-vars format")
	templatePath := fs.String("template", "template.yaml", "the SAM template that declares the function")
	timeout := fs.Duration("timeout", 10*time.Second, "the function's timeout")
	dataDir := fs.String("data", ".plantstore/dynalite", "where the local dynalite keeps its data")
	debugAddr := fs.String("debug-addr", "", "run the function under Delve, its headless server on this address (DEBUG=1; the bootstrap must be a debug build)")
	dlv := fs.String("dlv", ".bin/dlv", "Delve's dlv")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *function == "" || *bootstrap == "" || *eventPath == "" {
		fs.Usage()
		return errors.New("-function, -bootstrap and -event are required")
	}
	event, err := os.ReadFile(*eventPath)
	if err != nil {
		return err
	}
	fns, err := localfn.Prepare(ctx, localfn.Config{
		Template: *templatePath, EnvFile: *envPath, DataDir: *dataDir, LookupEnv: lookupEnv, Log: trace.Escaper(stderr),
		Bootstrap: func(string) string { return *bootstrap },
	}, []string{*function})
	if err != nil {
		return err
	}
	defer fns.Close()
	spec := fns.Specs[*function]

	rt, err := lambdaemu.Start()
	if err != nil {
		return err
	}
	defer rt.Close()
	// The function's lines go to stderr escaped: it may log what the
	// event carries.
	output := trace.Escaper(stderr)
	var fn *lambdaemu.Function
	if *debugAddr != "" {
		// No timeout while debugging, as SAM CLI (lambdaemu.Spec).
		*timeout = 24 * time.Hour
		fn, err = rt.RunDebug(lambdaemu.Debug{Dlv: *dlv, Addr: *debugAddr}, spec.Bootstrap, spec.Env, output)
		if err == nil { // Delve has said it listens
			fmt.Fprintf(stderr, "Debugging %s: Delve listens on %s and holds the invocation until a debugger continues it (dlv connect %s)\n", *function, *debugAddr, *debugAddr)
		}
	} else {
		fn, err = rt.Run(spec.Bootstrap, spec.Env, output)
	}
	if err != nil {
		return err
	}
	defer fn.Stop()

	type answer struct {
		res lambdaemu.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		ictx, cancel := context.WithTimeout(ctx, *timeout+5*time.Second)
		defer cancel()
		res, err := rt.Invoke(ictx, event, *timeout)
		done <- answer{res, err}
	}()
	select {
	case doc := <-rt.InitError():
		return initFailed(stdout, *function, doc)
	case <-fn.Exited():
		// A failed init posts its document, then exits: the document is
		// there before the exit, and says why.
		select {
		case doc := <-rt.InitError():
			return initFailed(stdout, *function, doc)
		default:
		}
		return fmt.Errorf("the function exited: %v", fn.Err())
	case a := <-done:
		if a.err != nil {
			return a.err
		}
		out := a.res.Payload
		if a.res.Error != nil {
			out = a.res.Error // e.g. the authorizer's {"errorMessage":"Unauthorized",...}
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
// function's error); make invoke returns an error, so exits 1, as it does
// when the function exits or times out: the function never ran on the
// event, and a script or make must not take the document for its answer.
func initFailed(stdout io.Writer, function string, doc []byte) error {
	if err := printAnswer(stdout, doc); err != nil {
		return err
	}
	var e struct{ ErrorType, ErrorMessage string }
	if json.Unmarshal(doc, &e) != nil {
		return fmt.Errorf("%s: init failed: %s", function, trace.Escape(string(doc)))
	}
	return fmt.Errorf("%s: init failed: %s", function, trace.Escape(e.ErrorType+": "+e.ErrorMessage))
}

// printAnswer prints a function's answer on stdout, indented when it is
// JSON, escaped (trace.Escape) line by line: JSON leaves DEL and the C1
// controls (U+0080 to U+009F, which a terminal may obey) as they are, and
// Escape writes them as \u escapes, so the answer stays the same JSON.
func printAnswer(stdout io.Writer, out []byte) error {
	var pretty any
	if json.Unmarshal(out, &pretty) == nil {
		out, _ = json.MarshalIndent(pretty, "", "  ")
	}
	_, err := fmt.Fprintf(trace.Escaper(stdout), "%s\n", out)
	return err
}
