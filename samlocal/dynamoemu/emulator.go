// Package dynamoemu starts the DynamoDB-compatible servers moto_server and
// dynalite behind loopback fronts that refuse web pages (guard.go) and
// answer only the requests signed with the run's own credentials
// (signature.go), for
// samlocal's functions (Local: the template's tables, created on them) and
// for tests (through dynamoemutest). moto returns the old item on a failed
// condition but its conditional writes are not atomic, so its front passes
// on one request at a time; dynalite serializes writes per item but
// ignores ReturnValuesOnConditionCheckFailure.
package dynamoemu

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// Region is the local servers' region.
const Region = "us-east-1"

// Server is a running DynamoDB-compatible server.
type Server struct {
	Name string
	URL  string
	// Credentials are the run's own (NewCredentials): the front at URL
	// answers only the requests they sign. A Server made by hand for a
	// server that checks no signature may leave them empty.
	Credentials aws.Credentials
	cmd         *exec.Cmd
	// stop ends what stands before the server (dynalite's guarded front)
	// and removes its socket's folder.
	stop func()
}

// StartMoto starts moto_server (see start).
func StartMoto() (*Server, error) {
	bin, err := exec.LookPath("moto_server")
	if err != nil {
		return nil, fmt.Errorf("moto_server is not installed (pip install 'moto[server]'): %w", err)
	}
	// moto_server runs Werkzeug's run_simple, which takes unix://PATH for a
	// host, with a thread per request; its backends share unlocked state
	// between them, so its front passes on one request at a time, whoever
	// sends it (a test, samlocal's stream poller, a function).
	return start("moto", true, func(sock string) *exec.Cmd { return exec.Command(bin, "-H", "unix://"+sock, "-p", "0") })
}

// StartDynalite starts dynalite (see start), with a path keeping its data
// there across runs, else in memory.
func StartDynalite(path string) (*Server, error) {
	bin, err := findDynalite()
	if err != nil {
		return nil, err
	}
	// dynalite's cli.js passes --port to node's server.listen, which takes a
	// path for a Unix socket.
	return start("dynalite", false, func(sock string) *exec.Cmd {
		args := []string{"--port", sock, "--createTableMs", "0", "--deleteTableMs", "0"}
		if path != "" {
			args = append(args, "--path", path)
		}
		return exec.Command(bin, args...)
	})
}

// start runs the server that command makes, listening on a Unix socket in a
// folder only this user may enter. Server.URL is a loopback port that any
// local user and any web page can send to: it serves the server behind
// Guard, since both emulators answer every origin's page (dynalite with
// Access-Control-Allow-Origin: *, moto by echoing the Origin), and behind
// Signed with new credentials of its own, since neither checks a
// signature. So neither another user nor a web page reaches the table.
// With serial, the front sends the server one request at a time.
func start(name string, serial bool, command func(sock string) *exec.Cmd) (*Server, error) {
	// Mode 0700; childproc.StopAll removes it on every way out of a tool,
	// a second Ctrl-C's included.
	dir, err := childproc.TempDir(name + "-")
	if err != nil {
		return nil, err
	}
	sock := filepath.Join(dir, name+".sock")
	cmd := command(sock)
	if err := childproc.Start(cmd); err != nil { // its own process group, killed with its parent
		os.RemoveAll(dir)
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &Server{Name: name, cmd: cmd, stop: func() { os.RemoveAll(dir) }}
	if err := listening(s, "unix", sock); err != nil {
		return nil, err
	}
	s.Credentials = NewCredentials()
	url, stopFront, err := front(sock, s.Credentials, serial)
	if err != nil {
		s.Stop()
		return nil, err
	}
	s.URL = url
	s.stop = func() { stopFront(); os.RemoveAll(dir) }
	return s, nil
}

// listening waits until s accepts connections at addr, or stops it.
func listening(s *Server, network, addr string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout(network, addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.Stop()
	return fmt.Errorf("%s did not listen on %s within 30s", s.Name, addr)
}

// Stop kills the server.
func (s *Server) Stop() {
	if s.cmd.Process != nil {
		childproc.Kill(s.cmd) // the group: npm's dynalite runs node under a shell
		s.cmd.Wait()
	}
	if s.stop != nil {
		s.stop()
	}
}

// findDynalite looks at $DYNALITE, then node_modules/.bin/dynalite in the
// working folder or the nearest folder above it that has one (npm installs
// it there: `npm install dynalite`), then $PATH.
func findDynalite() (string, error) {
	if p := os.Getenv("DYNALITE"); p != "" {
		return p, nil
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			p := filepath.Join(dir, "node_modules", ".bin", "dynalite")
			if _, err := os.Stat(p); err == nil {
				return p, nil
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
	}
	if p, err := exec.LookPath("dynalite"); err == nil {
		return p, nil
	}
	return "", errors.New("dynalite is not installed: npm install dynalite (samlocal looks in node_modules/.bin of this folder and above, $DYNALITE, then PATH)")
}

// Client returns a DynamoDB client for s with the SDK's standard retryer,
// signing with s.Credentials.
func (s *Server) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	opts := dynamodb.Options{Region: Region, BaseEndpoint: aws.String(s.URL), Credentials: s.credentials()}
	return dynamodb.New(opts, optFns...)
}

// Streams returns a DynamoDB Streams client for s, as Client. moto serves
// the streams on the tables' endpoint, and routes a request there by the
// service of its signature's scope, dynamodb, which is the SDK's signing
// name for DynamoDB Streams (service/dynamodbstreams, endpoints.go); it
// takes an unsigned request for S3's.
func (s *Server) Streams(optFns ...func(*dynamodbstreams.Options)) *dynamodbstreams.Client {
	opts := dynamodbstreams.Options{Region: Region, BaseEndpoint: aws.String(s.URL), Credentials: s.credentials()}
	return dynamodbstreams.New(opts, optFns...)
}

func (s *Server) credentials() aws.CredentialsProvider {
	creds := s.Credentials
	if creds.AccessKeyID == "" { // a Server made by hand
		creds = aws.Credentials{AccessKeyID: "unchecked", SecretAccessKey: "unchecked"}
	}
	return credentials.StaticCredentialsProvider{Value: creds}
}

// Env is the environment a child process needs to reach s through the SDK's
// standard variables, with s.Credentials and no AWS_SESSION_TOKEN.
func (s *Server) Env() []string {
	return []string{
		"AWS_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=" + s.Credentials.AccessKeyID,
		"AWS_SECRET_ACCESS_KEY=" + s.Credentials.SecretAccessKey,
		"AWS_ENDPOINT_URL_DYNAMODB=" + s.URL,
	}
}

// CreateTable creates the table in and waits until it is active. An
// existing table of that name is left as it is.
func CreateTable(ctx context.Context, c *dynamodb.Client, in *dynamodb.CreateTableInput) error {
	name := aws.ToString(in.TableName)
	_, err := c.CreateTable(ctx, in)
	if _, exists := errors.AsType[*types.ResourceInUseException](err); err != nil && !exists {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	return dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 10 * time.Millisecond
		o.MaxDelay = 200 * time.Millisecond
	}).Wait(ctx, &dynamodb.DescribeTableInput{TableName: &name}, 20*time.Second)
}

// Local is the DynamoDB that samlocal gives the functions whose
// environment names a table of the template, and the stream poller
// (samlocal/streams): a dynalite that keeps its data in Dir, with every
// table of the template (Tables) and the items of the project's seed file
// (Seed), started on first need and shared. Such a function gets
// AWS_ENDPOINT_URL_DYNAMODB pointing at it, unless the env file or the
// shell names an endpoint (then it keeps that, and the shell's
// credentials, as under SAM), and signs with the emulator's credentials in
// place of the shell's (its front answers no others). Call Stop when done.
//
// When a table has a StreamSpecification, the emulator is a moto_server
// for every table instead, in memory: dynalite serves no stream (its
// README lists "Implement DynamoDB Streams" under TODO, and its index.js
// answers the DynamoDBStreams_20120810 operations UnknownOperationException),
// moto serves them on the same endpoint as the tables. One emulator holds
// every table, so that a function's TransactWriteItems across two tables
// runs as it does on AWS. Log says which one runs, and why, in one line.
//
// Only one process can hold Dir (dynalite's LevelDB locks it): while
// another run holds it (samlocal start-api in another terminal, then
// samlocal invoke), this run's dynalite keeps its data in memory, and Log
// says so in one line that names the process that holds Dir.
type Local struct {
	Dir    string
	Log    io.Writer // where it says where it runs
	Tables []*dynamodb.CreateTableInput
	Seed   Seed // items put in Tables when their key is free
	srv    *Server
	ready  bool // the tables are created and seeded
}

// SetTables makes ts the tables, created (and seeded) before the next
// function is pointed at them: a reloaded template may add one.
func (l *Local) SetTables(ts []*dynamodb.CreateTableInput) {
	l.Tables, l.ready = ts, false
}

// Names lists the tables' names.
func (l *Local) Names() []string {
	var names []string
	for _, t := range l.Tables {
		names = append(names, aws.ToString(t.TableName))
	}
	return names
}

// Streamed lists the names of the tables with a stream.
func (l *Local) Streamed() []string {
	var names []string
	for _, t := range l.Tables {
		if t.StreamSpecification != nil {
			names = append(names, aws.ToString(t.TableName))
		}
	}
	return names
}

// Provide points env at the local emulator when a value of env names one
// of l's tables and AWS_ENDPOINT_URL_DYNAMODB is unset or empty in env.
func (l *Local) Provide(ctx context.Context, env map[string]string) error {
	if env["AWS_ENDPOINT_URL_DYNAMODB"] != "" || !namesATable(env, l.Names()) {
		return nil
	}
	srv, err := l.Start(ctx)
	if err != nil {
		return err
	}
	env["AWS_ENDPOINT_URL_DYNAMODB"] = srv.URL
	env["AWS_ACCESS_KEY_ID"], env["AWS_SECRET_ACCESS_KEY"] = srv.Credentials.AccessKeyID, srv.Credentials.SecretAccessKey
	delete(env, "AWS_SESSION_TOKEN")
	return nil
}

// Start starts the emulator, unless it runs, and creates and seeds the
// tables that are not there yet. A reloaded template that gives a table a
// stream while a dynalite runs is an error: the emulator is chosen once,
// at the first start.
func (l *Local) Start(ctx context.Context) (*Server, error) {
	streamed := l.Streamed()
	if l.srv == nil {
		srv, err := l.start(streamed)
		if err != nil {
			return nil, err
		}
		l.srv = srv
	}
	if l.srv.Name == "dynalite" && len(streamed) > 0 {
		return nil, fmt.Errorf("%s now has a StreamSpecification, and the dynalite that runs serves no streams: restart samlocal to serve the tables on moto_server", strings.Join(streamed, ", "))
	}
	if !l.ready {
		client := l.srv.Client()
		for _, t := range l.Tables {
			if err := CreateTable(ctx, client, t); err != nil {
				return nil, err
			}
		}
		if err := l.Seed.Put(ctx, client, l.Tables); err != nil {
			return nil, err
		}
		l.ready = true
	}
	return l.srv, nil
}

// start starts moto_server when a table has a stream (streamed names
// them), else dynalite, and says so on l.Log.
func (l *Local) start(streamed []string) (*Server, error) {
	if len(streamed) > 0 {
		srv, err := StartMoto()
		if errors.Is(err, exec.ErrNotFound) {
			return nil, fmt.Errorf("%s has a StreamSpecification: samlocal serves streams on moto_server, which is not installed (pip install 'moto[server]'); dynalite has no streams", strings.Join(streamed, ", "))
		}
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(l.Log, "DynamoDB on moto at %s: it serves streams (%s), dynalite does not; its data lives in memory (tables %s)\n", srv.URL, strings.Join(streamed, ", "), strings.Join(l.Names(), ", "))
		return srv, nil
	}
	if err := os.MkdirAll(l.Dir, 0o700); err != nil {
		return nil, err
	}
	path, where := l.Dir, "data in "+l.Dir
	if pid := holder(l.Dir); pid != 0 {
		path, where = "", fmt.Sprintf("data in memory: %s is held by process %d, another samlocal; stop it to keep this run's data there", l.Dir, pid)
	}
	srv, err := StartDynalite(path)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(l.Log, "dynalite on %s (%s; tables %s)\n", srv.URL, where, strings.Join(l.Names(), ", "))
	return srv, nil
}

// namesATable says whether a value of env is one of names.
func namesATable(env map[string]string, names []string) bool {
	for k, v := range env {
		if strings.HasPrefix(k, "AWS_") {
			continue
		}
		if slices.Contains(names, v) {
			return true
		}
	}
	return false
}

// Stop stops the emulator, if one was started.
func (l *Local) Stop() {
	if l.srv != nil {
		l.srv.Stop()
	}
}
