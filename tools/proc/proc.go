// Package proc starts the helper processes of the tooling (bootstraps, the
// local API, moto and dynalite) so that they never outlive the tool or test
// that started them, on every system Go builds for, and keeps the tools'
// temporary folders from outliving them.
//
// On Linux the kernel stops a child when its parent dies (Pdeathsig). Other
// systems have no such call, so every child started here is also recorded,
// and StopAll, which each tool and TestMain defers, stops the ones still
// running and removes the folders made by TempDir. ExitOnSignal does the
// same when a batch tool is interrupted (Ctrl-C during make bench).
package proc

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
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

// ExitOnSignal makes the first SIGINT or SIGTERM stop every child, remove
// the temporary folders and exit with status 130, saying so on stderr. For
// tools that run to completion (bench, load, smoke); servers shut down
// gracefully on their context instead.
func ExitOnSignal(name string) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-c
		StopAll()
		fmt.Fprintf(os.Stderr, "%s: stopped by %v; its processes and temporary files are gone\n", name, s)
		os.Exit(130)
	}()
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

// stopGrace is how long a stopping tool waits, after the first SIGINT or
// SIGTERM, before it stops its children itself: a function held by a
// debugger, or one that never answers, would hold the shutdown otherwise.
const stopGrace = 3 * time.Second

// Main runs a command of the tooling that serves until it is stopped (make
// invoke, make start-api): run's context ends on the first SIGINT or
// SIGTERM; if run has not returned stopGrace later, the children are
// stopped, which ends the invocations they hold; a second signal stops the
// children and exits at once (status 130). An error is printed as "name:
// error" and the exit status is 1; the children are stopped either way.
func Main(name string, run func(ctx context.Context) error) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		select {
		case <-sigs:
		case <-time.After(stopGrace):
			StopAll()
			<-sigs
		}
		StopAll()
		fmt.Fprintf(os.Stderr, "%s: stopped at once by a second signal; its processes are gone\n", name)
		os.Exit(130)
	}()
	err := run(ctx)
	signal.Stop(sigs)
	cancel()
	StopAll()
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		os.Exit(1)
	}
}
