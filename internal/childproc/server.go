package childproc

// This file builds and starts a server (cmd/localapi, as `make run` does, or
// the start-api tool) as a separate process and reads the address and token
// it prints. The benchmarks, the load and crash tests and the smoke check
// drive it over real HTTP.

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
)

// Build compiles cmd/localapi (or another server package) into dir.
func Build(dir, pkg string) (string, error) {
	root, err := srctree.Root()
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, filepath.Base(pkg))
	cmd := exec.Command("go", "build", "-trimpath", "-o", out, pkg)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", pkg, err, msg)
	}
	return out, nil
}

// Server is a running server process.
type Server struct {
	URL   string // http://127.0.0.1:port
	Token string // the printed token, if any
	cmd   *exec.Cmd
	done  chan struct{}
}

// Banner gathers what a server prints when it starts, as `make run` and
// `make start-api` print it: a line "... listening on http://HOST:PORT ...",
// and a line "Token ...:" followed by the token on a line of its own.
type Banner struct {
	URL, Token string
	tokenNext  bool
}

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// Line takes one line of the server's output.
func (b *Banner) Line(line string) {
	if m := listening.FindStringSubmatch(line); m != nil {
		b.URL = m[1]
	}
	if b.tokenNext {
		b.Token, b.tokenNext = strings.TrimSpace(line), false
	}
	b.tokenNext = b.tokenNext || strings.HasPrefix(line, "Token")
}

// Complete says whether the banner has its URL and, when wantToken, its token.
func (b *Banner) Complete(wantToken bool) bool {
	return b.URL != "" && (!wantToken || b.Token != "")
}

// StartServer runs bin with env added to this process's environment, stderr to
// stderr, and waits until it prints where it listens (and, when wantToken,
// its token).
func StartServer(bin string, env []string, wantToken bool, stderr io.Writer) (*Server, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := Start(cmd); err != nil {
		return nil, err
	}
	s := &Server{cmd: cmd, done: make(chan struct{})}
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	deadline := time.After(30 * time.Second)
	var banner Banner
	for !banner.Complete(wantToken) {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				return nil, fmt.Errorf("%s exited before it listened", bin)
			}
			banner.Line(line)
		case <-deadline:
			Kill(cmd)
			cmd.Wait()
			return nil, fmt.Errorf("%s did not start within 30s", bin)
		}
	}
	s.URL, s.Token = banner.URL, banner.Token
	go func() {
		for range lines { // the rest of its output
		}
	}()
	go func() {
		cmd.Wait()
		close(s.done)
	}()
	return s, nil
}

// Stop asks the server to shut down (SIGTERM) and waits for it.
func (s *Server) Stop() error {
	Terminate(s.cmd)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		Kill(s.cmd)
		<-s.done
		return fmt.Errorf("the server did not stop within 15s of SIGTERM")
	}
	if st := s.cmd.ProcessState; st != nil && !st.Success() {
		return fmt.Errorf("the server exited with %v", st)
	}
	return nil
}

// Kill ends the server with SIGKILL, as a crash would, and waits for it.
func (s *Server) Kill() {
	Kill(s.cmd)
	<-s.done
}
