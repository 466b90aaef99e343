// Package serverproc builds a server of the repository (cmd/localapi, as
// make run does) and runs it as a separate process, reading the address and
// token it prints, for the benchmarks, the load and crash tests and the
// smoke check.
package serverproc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/devserver"
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
	if err := childproc.Start(cmd); err != nil {
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
	var banner devserver.Banner
	for !banner.Complete(wantToken) {
		select {
		case line, ok := <-lines:
			if !ok {
				cmd.Wait()
				return nil, fmt.Errorf("%s exited before it listened", bin)
			}
			banner.Line(line)
		case <-deadline:
			childproc.Kill(cmd)
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
	childproc.Terminate(s.cmd)
	select {
	case <-s.done:
	case <-time.After(15 * time.Second):
		childproc.Kill(s.cmd)
		<-s.done
		return fmt.Errorf("the server did not stop within 15s of SIGTERM")
	}
	if st := s.cmd.ProcessState; st != nil && !st.Success() {
		return fmt.Errorf("the server exited with %v", st)
	}
	return nil
}

// CPUTime is the CPU time the server process has used so far.
func (s *Server) CPUTime() (time.Duration, error) { return childproc.CPUTime(s.cmd.Process.Pid) }

// Kill ends the server with SIGKILL, as a crash would, and waits for it.
func (s *Server) Kill() {
	childproc.Kill(s.cmd)
	<-s.done
}
