// Server is a small Lambda Runtime API (2018-06-01) on loopback:
// next, response, error and init/error. Tests, `make invoke` and `make bench`
// run the real bootstrap binaries against it, as the Lambda service would,
// without Docker.
//
// Any process on the machine can reach a loopback port, and the first to
// poll next would receive the callers' events (bearer tokens included) and
// could answer for the function. So each Server serves only under a random,
// unguessable path prefix, handed to the bootstrap in AWS_LAMBDA_RUNTIME_API
// ("127.0.0.1:PORT/PREFIX"): aws-lambda-go builds its URLs as "http://" +
// that value + "/2018-06-01/runtime/..." (lambda/runtime_api_client.go), so
// the prefix reaches every call. Other users cannot read a process's
// environment; a process of the same user can (it could also read its memory).

package lambdaemu

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"
)

const prefix = "/2018-06-01/runtime/"

// Result is what the function answered to one invocation.
type Result struct {
	Payload   []byte // the response, when the function succeeded
	Error     []byte // the error document, when it failed
	ErrorType string // Lambda-Runtime-Function-Error-Type of a failure
}

type invocation struct {
	id       string
	trace    string // Lambda-Runtime-Trace-Id
	payload  []byte
	deadline time.Time
	done     chan Result
}

// Server is a Runtime API for one function process at a time.
type Server struct {
	srv    *http.Server
	addr   string // host:port
	secret string // the path prefix every request must carry

	queue     chan *invocation
	initError chan []byte
	firstPoll chan time.Time
	pollOnce  sync.Once

	mu      sync.Mutex
	pending map[string]*invocation
}

// Start serves a Runtime API on a free loopback port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Server{
		addr:      ln.Addr().String(),
		secret:    rand.Text(),
		queue:     make(chan *invocation),
		initError: make(chan []byte, 1),
		firstPoll: make(chan time.Time, 1),
		pending:   map[string]*invocation{},
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}
	go s.srv.Serve(ln)
	return s, nil
}

// Addr is the value for AWS_LAMBDA_RUNTIME_API: host:port/secret.
func (s *Server) Addr() string { return s.addr + "/" + s.secret }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// FirstPoll delivers the time of the first GET next: the function's init is over.
func (s *Server) FirstPoll() <-chan time.Time { return s.firstPoll }

// InitError delivers the document of a POST init/error.
func (s *Server) InitError() <-chan []byte { return s.initError }

// Invoke hands payload to the function's next poll and waits for its answer.
// timeout is the function's deadline, as Lambda sets it.
func (s *Server) Invoke(ctx context.Context, payload []byte, timeout time.Duration) (Result, error) {
	return s.invoke(ctx, newInvocation(payload, timeout))
}

// newInvocation is one invocation with its ids: a request id, and a trace
// header in X-Ray's form (Root=1-{epoch seconds, hex}-{96 random bits,
// hex}), new for each invocation as Lambda's are. aws-lambda-go puts the
// header in _X_AMZN_TRACE_ID and the SDK sends it on every call as
// X-Amzn-Trace-Id, which is how make start-api ties DynamoDB calls to
// their request (tools/trace).
func newInvocation(payload []byte, timeout time.Duration) *invocation {
	now := time.Now()
	var root [12]byte
	_, _ = rand.Read(root[:])
	return &invocation{
		id:       rand.Text(),
		trace:    fmt.Sprintf("Root=1-%08x-%x;Sampled=0", now.Unix(), root),
		payload:  payload,
		deadline: now.Add(timeout),
		done:     make(chan Result, 1),
	}
}

func (s *Server) invoke(ctx context.Context, inv *invocation) (Result, error) {
	s.mu.Lock()
	s.pending[inv.id] = inv
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.pending, inv.id)
		s.mu.Unlock()
	}()
	select {
	case s.queue <- inv:
	case <-ctx.Done():
		return Result{}, fmt.Errorf("no function polled: %w", ctx.Err())
	}
	select {
	case r := <-inv.done:
		return r, nil
	case <-ctx.Done():
		return Result{}, fmt.Errorf("no answer to invocation %s: %w", inv.id, ctx.Err())
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	secret, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if subtle.ConstantTimeCompare([]byte(secret), []byte(s.secret)) != 1 {
		http.NotFound(w, r)
		return
	}
	path, ok := strings.CutPrefix("/"+rest, prefix)
	if !ok {
		http.NotFound(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 6<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case r.Method == http.MethodGet && path == "invocation/next":
		s.pollOnce.Do(func() { s.firstPoll <- time.Now() })
		select {
		case inv := <-s.queue:
			h := w.Header()
			h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
			h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
			h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:us-east-1:123456789012:function:local")
			h.Set("Lambda-Runtime-Trace-Id", inv.trace)
			h.Set("Content-Type", "application/json")
			w.Write(inv.payload)
		case <-r.Context().Done():
		}
	case r.Method == http.MethodPost && path == "init/error":
		select {
		case s.initError <- body:
		default:
		}
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "invocation/"):
		id, kind, _ := strings.Cut(strings.TrimPrefix(path, "invocation/"), "/")
		s.mu.Lock()
		inv := s.pending[id]
		s.mu.Unlock()
		if inv == nil {
			http.Error(w, `{"errorMessage":"unknown request id"}`, http.StatusBadRequest)
			return
		}
		switch kind {
		case "response":
			inv.done <- Result{Payload: body}
		case "error":
			inv.done <- Result{Error: body, ErrorType: r.Header.Get("Lambda-Runtime-Function-Error-Type")}
		default:
			http.NotFound(w, r)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		http.NotFound(w, r)
	}
}

// Function is a bootstrap process running against a Server.
type Function struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when the process has ended
	err    error         // its exit, once exited is closed
}

// Run starts the bootstrap at path with env (plus AWS_LAMBDA_RUNTIME_API,
// which env cannot change, and the variables Lambda always sets, which it
// can); its output goes to output.
func (s *Server) Run(path string, env []string, output io.Writer) (*Function, error) {
	return s.start(exec.Command(path), env, output)
}

// Debug is how to run a function's bootstrap under Delve: dlv's path and
// the loopback address its headless server listens on.
type Debug struct {
	Dlv  string
	Addr string // e.g. 127.0.0.1:5858
}

// RunDebug is Run under Delve's headless server (API v2, several clients,
// only this user's): the process stops before its first instruction and
// runs when a debugger connects and continues, so its init and its first
// invocation wait for the breakpoints. Build path with -gcflags=all=-N -l
// and without -s -w, or the debugger sees little.
//
// It returns once Delve says it listens ("API server listening at: ADDR",
// dlv's service/rpccommon), so that nobody is told to connect to an address
// that another process holds; if dlv ends first (the address is taken), it
// returns dlv's own line as the error.
func (s *Server) RunDebug(d Debug, path string, env []string, output io.Writer) (*Function, error) {
	w := &listenWatch{next: output, want: "API server listening at: " + d.Addr, ready: make(chan struct{})}
	f, err := s.start(exec.Command(d.Dlv, "exec", path, "--headless", "--listen="+d.Addr, "--api-version=2", "--accept-multiclient", "--only-same-user"), env, w)
	if err != nil {
		return nil, err
	}
	select {
	case <-w.ready:
		return f, nil
	case <-f.exited:
		return nil, fmt.Errorf("dlv could not listen on %s: %s (DEBUG_PORT=... picks another port)", d.Addr, strings.TrimSpace(w.last()))
	}
}

// CheckFree says whether d's address can be listened on now: a tool checks
// it before it prints where Delve will listen.
func (d Debug) CheckFree() error {
	ln, err := net.Listen("tcp", d.Addr)
	if err != nil {
		return fmt.Errorf("the debug address %s is taken (%v); DEBUG_PORT=... picks another port", d.Addr, err)
	}
	return ln.Close()
}

// listenWatch passes dlv's output on and closes ready at the line that
// says it listens.
type listenWatch struct {
	next  io.Writer
	want  string
	ready chan struct{}
	mu    sync.Mutex
	seen  []byte
	done  bool
}

// Write passes p on first and only then says that Delve listens, so that
// whoever waits on ready finds the line in the output already.
func (w *listenWatch) Write(p []byte) (int, error) {
	n, err := w.next.Write(p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.done {
		w.seen = append(w.seen, p...)
		if bytes.Contains(w.seen, []byte(w.want)) {
			w.done = true
			close(w.ready)
		}
		if len(w.seen) > 4096 {
			w.seen = w.seen[len(w.seen)-4096:]
		}
	}
	return n, err
}

// last is the last line dlv wrote.
func (w *listenWatch) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(w.seen)), "\n")
	return lines[len(lines)-1]
}

func (s *Server) start(cmd *exec.Cmd, env []string, output io.Writer) (*Function, error) {
	// env (the template's and the env file's, data of a pull request)
	// may set any of these but AWS_LAMBDA_RUNTIME_API, which is the
	// emulator's: the Runtime Interface Emulator that sam local runs puts
	// its own address over the function's variables (RuntimeExecEnv in
	// aws-lambda-runtime-interface-emulator's
	// lambda/rapidcore/env/environment.go merges the Platform variables
	// last), and exec.Cmd takes the last of a name.
	cmd.Env = slices.Concat([]string{
		"AWS_LAMBDA_FUNCTION_NAME=local",
		"AWS_LAMBDA_FUNCTION_VERSION=$LATEST",
		"AWS_LAMBDA_FUNCTION_MEMORY_SIZE=128",
		"AWS_LAMBDA_LOG_GROUP_NAME=/aws/lambda/local",
		"AWS_LAMBDA_LOG_STREAM_NAME=local",
		"LAMBDA_TASK_ROOT=/var/task",
		"TZ=:UTC",
	}, env, []string{"AWS_LAMBDA_RUNTIME_API=" + s.Addr()})
	cmd.Stdout, cmd.Stderr = output, output
	if err := childproc.Start(cmd); err != nil {
		return nil, err
	}
	f := &Function{cmd: cmd, exited: make(chan struct{})}
	go func() {
		f.err = cmd.Wait()
		close(f.exited)
	}()
	return f, nil
}

// Exited is closed when the process has ended; Err then says how.
func (f *Function) Exited() <-chan struct{} { return f.exited }

// Err is the process's exit error (nil for exit status 0), once Exited is closed.
func (f *Function) Err() error { return f.err }

// Stop ends the process (SIGTERM, then SIGKILL after a second).
func (f *Function) Stop() {
	childproc.Terminate(f.cmd)
	select {
	case <-f.exited:
	case <-time.After(time.Second):
		childproc.Kill(f.cmd)
		<-f.exited
	}
}
