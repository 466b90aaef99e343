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
//
// Each child runs in a process group of its own, so the terminal's Ctrl-C
// (SIGINT to its foreground group) reaches the tool alone, and the tool
// decides what its children get: InterruptAll passes the Ctrl-C on to
// them, as the terminal would have, before KillAll.
package childproc

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"time"
)

// waitDelay bounds how long Wait waits, once a child has exited, for its
// output pipes to close: a process it started in a group of its own (Delve
// starts its debuggee so) would keep them open, and Wait, with whoever
// waits for the child, for as long as that process runs (os/exec's
// Cmd.WaitDelay).
const waitDelay = 2 * time.Second

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
// the system allows, and records it for StopAll. Its Wait returns at most
// waitDelay after it exited, unless cmd sets a WaitDelay of its own.
func Start(cmd *exec.Cmd) error {
	prepare(cmd)
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = waitDelay
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	mu.Lock()
	running[cmd] = struct{}{}
	mu.Unlock()
	return nil
}

// Run runs cmd as Start starts it and waits for it. If ctx ends first, its
// process group is interrupted (SIGINT, as the terminal's Ctrl-C would
// reach it; killed where there are no signals): make then waits for its
// commands, and the go command for its compiler and linker, so that once
// Run has returned nothing of the group writes any more. A group still
// running interruptGrace later is killed: a Ctrl-C can be lost, as in a
// terminal (a shell that it reaches while it waits for a command that then
// exits normally goes on to its next one: bash's "wait and cooperative
// exit"; make then waits for that command too).
func Run(ctx context.Context, cmd *exec.Cmd) error {
	if err := Start(cmd); err != nil {
		return err
	}
	exited, grace := make(chan struct{}), interruptGrace
	stop := context.AfterFunc(ctx, func() {
		interruptGroup(cmd)
		select {
		case <-exited:
		case <-time.After(grace):
			killGroup(cmd)
		}
	})
	err := cmd.Wait()
	close(exited)
	stop()
	forget(cmd)
	return err
}

// interruptGrace is how long Run's interrupted group has to exit before it
// is killed: the go command and make stop within a second of a SIGINT.
var interruptGrace = 10 * time.Second

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

// InterruptAll sends SIGINT to the process group of every child started by
// Start that has not been stopped, as the terminal's Ctrl-C would have
// reached it in the terminal's group: a child that ends what it started
// on SIGINT does so (Delve kills its debuggee; make waits for its
// commands, and the go command for its compiler and linker). It leaves
// the children recorded, for KillAll. Where there are no signals it kills
// them.
func InterruptAll() {
	for _, c := range children() {
		interruptGroup(c)
	}
}

// KillAll kills every child started by Start that has not been stopped,
// with its process group.
func KillAll() {
	for _, c := range children() {
		Kill(c)
	}
}

// StopAll kills every child started by Start that has not been stopped, and
// removes the folders made by TempDir.
func StopAll() {
	KillAll()
	mu.Lock()
	dirs := temps
	temps = nil
	mu.Unlock()
	for _, d := range dirs {
		_ = os.RemoveAll(d)
	}
}

func children() []*exec.Cmd {
	mu.Lock()
	defer mu.Unlock()
	cmds := make([]*exec.Cmd, 0, len(running))
	for c := range running {
		cmds = append(cmds, c)
	}
	return cmds
}

func forget(cmd *exec.Cmd) {
	mu.Lock()
	delete(running, cmd)
	mu.Unlock()
}
