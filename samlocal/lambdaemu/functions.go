package lambdaemu

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"
)

// Spec is how to run one function: its bootstrap, its environment and its
// timeout, and, to debug it, Delve.
type Spec struct {
	Bootstrap string
	Env       []string
	Timeout   time.Duration
	Debug     *Debug // nil: run the bootstrap itself
}

// debugTimeout stands for the function's timeout while it runs under a
// debugger. SAM CLI enforces no timeout then ("If debugging though, we
// don't enforce a timeout": samcli/local/lambdafn/runtime.py,
// _configure_interrupt), and the deadline the function reads from
// Lambda-Runtime-Deadline-Ms must not pass while it is stopped at a
// breakpoint (createplant bounds its store calls by it), so the deadline is
// a day away.
const debugTimeout = 24 * time.Hour

// timeout is the invocation's timeout: the template's, or none to speak of
// under a debugger.
func (s Spec) timeout() time.Duration {
	if s.Debug != nil {
		return debugTimeout
	}
	return s.Timeout
}

// Functions runs named functions on demand, one process each on a Runtime
// API of its own, invocations of one function one at a time (as one Lambda
// execution environment takes them). A process that exits or times out is
// replaced at the next invocation, as Lambda replaces an environment.
type Functions struct {
	// Observer, when set before the first Invoke, hears of every invocation.
	Observer Observer

	output io.Writer
	mu     sync.Mutex
	fns    map[string]*instance
}

type instance struct {
	spec Spec
	mu   sync.Mutex // one invocation at a time
	srv  *Server
	proc *Function
}

// Observer hears of the invocations of Functions: make start-api's trace
// (tools/trace) ties each to the request that caused it.
type Observer interface {
	// Begin is called as an invocation of function starts; end is then
	// called once, with how it went ("cold, init 2ms", "warm, failed: ...").
	Begin(ctx context.Context, function string) (end func(detail string))
	// Invoked is called with the invocation's Lambda request id and its
	// trace header (Lambda-Runtime-Trace-Id).
	Invoked(ctx context.Context, requestID, traceHeader string)
}

// quiet is the Observer of Functions that have none.
type quiet struct{}

func (quiet) Begin(context.Context, string) func(string) { return func(string) {} }
func (quiet) Invoked(context.Context, string, string)    {}

// NewFunctions runs the functions of specs; their output goes to output.
func NewFunctions(specs map[string]Spec, output io.Writer) *Functions {
	f := &Functions{output: output, fns: map[string]*instance{}}
	for name, spec := range specs {
		f.fns[name] = &instance{spec: spec}
	}
	return f
}

// Invoke calls function with payload. failed says that answer is an error
// document (the function's own, or Lambda's for a crash or a timeout).
func (f *Functions) Invoke(ctx context.Context, function string, payload []byte) ([]byte, bool, error) {
	f.mu.Lock()
	in := f.fns[function]
	f.mu.Unlock()
	if in == nil {
		return nil, false, fmt.Errorf("no function %q", function)
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	obs := f.Observer
	if obs == nil {
		obs = quiet{}
	}
	end := obs.Begin(ctx, function)
	cold := in.proc == nil
	started := time.Now()
	if err := in.start(f.output); err != nil {
		// As Lambda answers for a runtime that cannot start
		// (Runtime.InvalidEntrypoint, "Invoke errors" in the Lambda
		// API reference): the cause in the answer and on the terminal,
		// never a bare 500.
		msg := fmt.Sprintf("%s did not start: %v", function, err)
		fmt.Fprintln(f.output, msg)
		end("did not start: " + err.Error())
		return lambdaError("Runtime.InvalidEntrypoint", msg), true, nil
	}
	// The server of this environment, read before invoke: an invocation
	// that ends it (a failed init, an exit, a timeout) clears in.srv.
	srv := in.srv
	answer, failed, initFailed, err := in.invoke(ctx, obs, payload)
	detail := "warm"
	if cold {
		detail = "cold"
		select {
		case polled := <-srv.FirstPoll(): // sent once, before the first invocation was taken
			detail += ", init " + polled.Sub(started).Round(100*time.Microsecond).String()
		default:
		}
	}
	var doc struct{ ErrorType, ErrorMessage string }
	switch {
	case err != nil:
		detail += ", " + err.Error()
	case initFailed:
		_ = json.Unmarshal(answer, &doc)
		detail += ", init failed: " + doc.ErrorType + ": " + doc.ErrorMessage
	case failed:
		_ = json.Unmarshal(answer, &doc)
		detail += ", failed: " + doc.ErrorType + " " + doc.ErrorMessage
	}
	end(detail)
	return answer, failed, err
}

// invoke runs one invocation on the started process. initFailed says that
// the answer is the document the function posted to /runtime/init/error:
// its init failed, and the invocation never reached its handler.
//
// That document is the invocation's answer, as under sam local invoke and
// start-lambda: the Runtime Interface Emulator that SAM runs in its
// containers answers the invocation with the body the runtime posted to
// init/error (aws-lambda-runtime-interface-emulator,
// internal/lambda/rapi/handler/initerror.go: an ErrorInvokeResponse whose
// Payload is that body), and SAM passes a payload with errorMessage and
// errorType on as a function error (samcli/local/services/
// base_local_service.py, LambdaOutputParser.is_lambda_error_response). The
// Lambda Runtime API's reference describes the path ("Initialization
// error": "If the runtime encounters an error during initialization, it
// posts an error message to the initialization error path").
func (in *instance) invoke(ctx context.Context, obs Observer, payload []byte) (answer []byte, failed, initFailed bool, err error) {
	type result struct {
		res Result
		err error
	}
	done := make(chan result, 1)
	ictx, cancel := context.WithTimeout(ctx, in.spec.timeout()+2*time.Second)
	defer cancel()
	srv, timeout := in.srv, in.spec.timeout() // stop, below, may clear in.srv while this runs
	inv := newInvocation(payload, timeout)
	obs.Invoked(ctx, inv.id, inv.trace)
	go func() {
		res, err := srv.invoke(ictx, inv)
		done <- result{res, err}
	}()
	select {
	case r := <-done:
		if r.err != nil {
			in.stop()
			if ctx.Err() != nil {
				return nil, false, false, r.err
			}
			return lambdaError("Sandbox.Timedout", fmt.Sprintf("Task timed out after %s", timeout)), true, false, nil
		}
		if r.res.Error != nil {
			return r.res.Error, true, false, nil
		}
		return r.res.Payload, false, false, nil
	case doc := <-srv.InitError():
		in.stop()
		return doc, true, true, nil
	case <-in.proc.Exited():
		// A function whose init fails posts init/error, then exits: the
		// document is there before the exit (the server keeps it before it
		// answers that POST), and it says why, where the exit says only
		// that the process ended.
		select {
		case doc := <-srv.InitError():
			in.stop()
			return doc, true, true, nil
		default:
		}
		err := in.proc.Err()
		in.stop()
		return lambdaError("Runtime.ExitError", fmt.Sprintf("the function exited: %v", err)), true, false, nil
	}
}

// StartAll starts every function now, as --warm-containers EAGER starts
// every container at start; the first that cannot start is the error.
func (f *Functions) StartAll() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	for name, in := range f.fns {
		in.mu.Lock()
		err := in.start(f.output)
		in.mu.Unlock()
		if err != nil {
			return fmt.Errorf("%s did not start: %w", name, err)
		}
	}
	return nil
}

// Close stops every function.
func (f *Functions) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, in := range f.fns {
		in.mu.Lock()
		in.stop()
		in.mu.Unlock()
	}
}

func (in *instance) start(output io.Writer) error {
	if in.proc != nil {
		return nil
	}
	srv, err := Start()
	if err != nil {
		return err
	}
	run := srv.Run
	if d := in.spec.Debug; d != nil {
		run = func(path string, env []string, output io.Writer) (*Function, error) {
			return srv.RunDebug(*d, path, env, output)
		}
	}
	proc, err := run(in.spec.Bootstrap, in.spec.Env, output)
	if err != nil {
		srv.Close()
		return err
	}
	in.srv, in.proc = srv, proc
	return nil
}

func (in *instance) stop() {
	if in.proc != nil {
		in.proc.Stop()
		in.srv.Close()
		in.proc, in.srv = nil, nil
	}
}

func lambdaError(typ, msg string) []byte {
	b, _ := json.Marshal(map[string]string{"errorType": typ, "errorMessage": msg})
	return b
}
