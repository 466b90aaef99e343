// Package childproc starts the child processes of the local tools and of the
// tests (bootstraps, the local API, moto and dynalite) so that they never
// outlive the tool or test that started them, on every system Go builds
// for, and keeps their temporary folders from outliving them. It also
// builds and starts a server and reads the banner it prints (server.go),
// and reads a process's CPU time (cputime.go).
//
// On Linux the kernel stops a child when its parent dies (Pdeathsig). Other
// systems have no such call, so every child started here is also recorded,
// and StopAll, which each tool and TestMain defers, stops the ones still
// running and removes the folders made by TempDir (tools/proc does the same
// when a tool is interrupted).
package childproc

import (
	"os"
	"os/exec"
	"sync"
)

var (
	mu      sync.Mutex
	running = map[*exec.Cmd]struct{}{}
	temps   []string
)

// TempDir makes a temporary folder that StopAll removes.
func TempDir(pattern string) (string, error) {
	dir, err := os.MkdirTemp("", pattern)
	if err != nil {
		return "", err
	}
	mu.Lock()
	temps = append(temps, dir)
	mu.Unlock()
	return dir, nil
}

// Start starts cmd in a process group of its own, tied to this process where
// the system allows, and records it for StopAll.
func Start(cmd *exec.Cmd) error {
	prepare(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	mu.Lock()
	running[cmd] = struct{}{}
	mu.Unlock()
	return nil
}

// Kill ends cmd and every process of its group at once (SIGKILL where there
// are signals) and forgets it. The caller still Waits for it.
func Kill(cmd *exec.Cmd) {
	forget(cmd)
	if cmd.Process != nil {
		killGroup(cmd)
	}
}

// Terminate asks cmd to stop (SIGTERM where there are signals; elsewhere it
// is killed) and forgets it.
func Terminate(cmd *exec.Cmd) {
	forget(cmd)
	if cmd.Process != nil {
		terminate(cmd)
	}
}

// StopAll kills every child started by Start that has not been stopped, and
// removes the folders made by TempDir.
func StopAll() {
	mu.Lock()
	cmds := make([]*exec.Cmd, 0, len(running))
	for c := range running {
		cmds = append(cmds, c)
	}
	dirs := temps
	temps = nil
	mu.Unlock()
	for _, c := range cmds {
		Kill(c)
	}
	for _, d := range dirs {
		_ = os.RemoveAll(d)
	}
}

func forget(cmd *exec.Cmd) {
	mu.Lock()
	delete(running, cmd)
	mu.Unlock()
}
