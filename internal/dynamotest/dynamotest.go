// Package dynamotest runs the DynamoDB-compatible servers of DESIGN.md
// section 8 for tests: moto_server and dynalite, each started once per test
// binary on a free loopback port, with a fresh table per test.
//
// A test that needs a server skips when it is not installed, except under
// CI=true, where it fails: CI must run every test.
package dynamotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// Server is a running DynamoDB-compatible server.
type Server struct {
	Name string
	URL  string
	cmd  *exec.Cmd
	// serial makes clients send one request at a time (moto's threaded
	// server shares unlocked state between requests).
	serial *sync.Mutex
}

// Region and credentials that every test client and child process uses.
const (
	Region    = "us-east-1"
	AccessKey = "test"
	SecretKey = "test"
)

type starter struct {
	once sync.Once
	srv  *Server
	err  error
}

var (
	mu       sync.Mutex
	started  []*Server
	moto     starter
	dynalite starter
)

// Moto returns the shared moto_server (atomic conditional writes are not
// promised there: do not race on it).
func Moto(t testing.TB) *Server {
	t.Helper()
	s := get(t, &moto, "moto", func(port string) (*exec.Cmd, error) {
		bin, err := exec.LookPath("moto_server")
		if err != nil {
			return nil, fmt.Errorf("moto_server is not installed (pip install 'moto[server]'): %w", err)
		}
		return exec.Command(bin, "-H", "127.0.0.1", "-p", port), nil
	})
	s.serial = &motoSerial
	return s
}

var motoSerial sync.Mutex

// Dynalite returns the shared dynalite (writes serialized per item; it ignores
// ReturnValuesOnConditionCheckFailure).
func Dynalite(t testing.TB) *Server {
	t.Helper()
	return get(t, &dynalite, "dynalite", func(port string) (*exec.Cmd, error) {
		bin, err := findDynalite()
		if err != nil {
			return nil, err
		}
		return exec.Command(bin, "--host", "127.0.0.1", "--port", port, "--createTableMs", "0", "--deleteTableMs", "0"), nil
	})
}

// Servers returns both servers, for tests that run on each.
func Servers(t testing.TB) []*Server {
	t.Helper()
	return []*Server{Moto(t), Dynalite(t)}
}

// Main runs the tests and stops the servers they started.
func Main(m *testing.M) {
	code := m.Run()
	mu.Lock()
	for _, s := range started {
		s.stop()
	}
	mu.Unlock()
	os.Exit(code)
}

func get(t testing.TB, st *starter, name string, command func(port string) (*exec.Cmd, error)) *Server {
	t.Helper()
	st.once.Do(func() { st.srv, st.err = start(name, command) })
	if st.err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v", name, st.err)
		}
		t.Skipf("%s: %v (make test installs and runs it)", name, st.err)
	}
	return st.srv
}

func start(name string, command func(port string) (*exec.Cmd, error)) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	cmd, err := command(port)
	if err != nil {
		return nil, err
	}
	// Its own process group, killed with the test binary.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &Server{Name: name, URL: "http://127.0.0.1:" + port, cmd: cmd}
	mu.Lock()
	started = append(started, s)
	mu.Unlock()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, 200*time.Millisecond); err == nil {
			c.Close()
			return s, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	s.stop()
	return nil, fmt.Errorf("%s did not listen on %s within 30s", name, s.URL)
}

func (s *Server) stop() {
	if s.cmd.Process != nil {
		syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		s.cmd.Wait()
	}
}

func freePort() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// findDynalite looks at $DYNALITE, then node_modules/.bin above the working
// directory (make test installs it there), then $PATH.
func findDynalite() (string, error) {
	if p := os.Getenv("DYNALITE"); p != "" {
		return p, nil
	}
	dir, _ := os.Getwd()
	for dir != "" {
		p := filepath.Join(dir, "node_modules", ".bin", "dynalite")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if p, err := exec.LookPath("dynalite"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("dynalite is not installed (npm ci, from package.json)")
}

// Client returns a DynamoDB client for s with the test credentials and
// the SDK's standard retryer.
func (s *Server) Client(optFns ...func(*dynamodb.Options)) *dynamodb.Client {
	opts := dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(s.URL),
		Credentials:  credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	}
	if s.serial != nil {
		opts.HTTPClient = serialClient{mu: s.serial, next: awshttp.NewBuildableClient()}
	}
	return dynamodb.New(opts, optFns...)
}

type serialClient struct {
	mu   *sync.Mutex
	next *awshttp.BuildableClient
}

func (c serialClient) Do(r *http.Request) (*http.Response, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	resp, err := c.next.Do(r)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body) // the whole answer inside the lock
	resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, err
}

// Env returns the environment a child process needs to reach s through the
// SDK's standard variables.
func (s *Server) Env() []string {
	return []string{
		"AWS_REGION=" + Region,
		"AWS_ACCESS_KEY_ID=" + AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + SecretKey,
		"AWS_ENDPOINT_URL_DYNAMODB=" + s.URL,
	}
}

// NewTable creates a fresh plants table (partition key id, N) on s and
// returns its name.
func (s *Server) NewTable(t testing.TB) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "plants-" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := CreateTable(ctx, s.Client(), name); err != nil {
		t.Fatalf("%s: create table: %v", s.Name, err)
	}
	return name
}

// CreateTable creates a plants table as template.yaml declares it and waits
// until it is active.
func CreateTable(ctx context.Context, c *dynamodb.Client, name string) error {
	_, err := c.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:            &name,
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String("id"), AttributeType: types.ScalarAttributeTypeN}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String("id"), KeyType: types.KeyTypeHash}},
		BillingMode:          types.BillingModePayPerRequest,
	})
	if err != nil {
		return err
	}
	return dynamodb.NewTableExistsWaiter(c, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay = 10 * time.Millisecond
		o.MaxDelay = 200 * time.Millisecond
	}).Wait(ctx, &dynamodb.DescribeTableInput{TableName: &name}, 20*time.Second)
}
