// Package localserver builds and starts cmd/localapi as a separate process,
// the way `make run` does, and reads the address and token it prints. The
// benchmarks and the load and crash tests drive it over real HTTP.
package localserver

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// Build compiles cmd/localapi (or another server package) into dir.
func Build(dir, pkg string) (string, error) {
	_, file, _, _ := runtime.Caller(0)
	root := filepath.Join(filepath.Dir(file), "..", "..")
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

var listening = regexp.MustCompile(`listening on (http://\S+)`)

// Start runs bin with env added to this process's environment, stderr to
// stderr, and waits until it prints where it listens (and, when wantToken,
// its token).
func Start(bin string, env []string, wantToken bool, stderr io.Writer) (*Server, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
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
	tokenNext := false
	for s.URL == "" || (wantToken && s.Token == "") {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				return nil, fmt.Errorf("%s exited before it listened", bin)
			}
			if m := listening.FindStringSubmatch(line); m != nil {
				s.URL = m[1]
			}
			if tokenNext {
				s.Token, tokenNext = strings.TrimSpace(line), false
			}
			tokenNext = tokenNext || strings.HasPrefix(line, "Token")
		case <-deadline:
			cmd.Process.Kill()
			cmd.Wait()
			return nil, fmt.Errorf("%s did not start within 30s", bin)
		}
	}
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
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		s.cmd.Process.Kill()
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
	s.cmd.Process.Kill()
	<-s.done
}
