// Package proc runs the commands of the tooling: it ends them on SIGINT,
// SIGTERM and SIGHUP with every child they started (internal/childproc)
// stopped and their temporary folders removed.
package proc

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"
	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// stopSignals stop a tool: Ctrl-C (SIGINT, which the terminal sends to its
// whole foreground process group), a kill (SIGTERM) and a closed terminal
// (SIGHUP, which the shell sends to each of its jobs). All three clean up
// alike.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// keepOnBrokenPipe keeps a stopping tool alive when what read its output is
// gone (make start-api | tee, in a terminal that closed): without a
// channel for SIGPIPE, Go ends the program when a write to stdout or
// stderr meets a broken pipe, before its clean-up (os/signal, "SIGPIPE").
// With one, the write fails and the tool goes on; nothing reads the
// channel, as a broken pipe alone is no reason to stop.
func keepOnBrokenPipe() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }

// ExitOnSignal makes the first SIGINT, SIGTERM or SIGHUP stop every child,
// remove the temporary folders and exit with status 130, saying so on
// stderr. For tools that run to completion (bench, load, smoke); servers
// shut down gracefully on their context instead.
func ExitOnSignal(name string) {
	keepOnBrokenPipe()
	c := make(chan os.Signal, 1)
	signal.Notify(c, stopSignals...)
	go func() {
		s := <-c
		childproc.StopAll()
		fmt.Fprintf(os.Stderr, "%s: stopped by %v; its processes and temporary files are gone\n", name, s)
		os.Exit(130)
	}()
}

// The steps of a tool's stop after the first signal, each after the one
// before: stopGrace lets the requests in flight finish; then the children
// are interrupted (a function held by a debugger, or one that never
// answers, would hold the shutdown otherwise); killGrace later those left
// are killed; exitGrace later the tool exits whatever it still waits for.
// One Ctrl-C so ends everything within their sum.
const (
	stopGrace = 3 * time.Second
	killGrace = 2 * time.Second
	exitGrace = 5 * time.Second
)

// Main runs a command of the tooling that serves until it is stopped (make
// invoke, make start-api): run's context ends on the first SIGINT, SIGTERM
// or SIGHUP; if run has not returned stopGrace later, each child is
// interrupted (childproc.InterruptAll: Delve then ends its debuggee, make
// its build), killGrace later killed, and exitGrace later the tool stops
// at once, as a second signal stops it at any time: the children are
// killed, the temporary folders removed and the exit status is 130. When
// run returns, an error is printed as "name: error", escaped, and the exit
// status is 1; the children are stopped and the folders removed either way.
func Main(name string, run func(ctx context.Context) error) {
	mainWithin(name, [3]time.Duration{stopGrace, killGrace, exitGrace}, run)
}

// mainWithin is Main with the steps of its stop.
func mainWithin(name string, steps [3]time.Duration, run func(ctx context.Context) error) {
	keepOnBrokenPipe()
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	go func() {
		<-sigs
		cancel()
		msg := "stopped at once by a second signal; its processes are gone"
		if !signalWithin(sigs, steps[0]) {
			childproc.InterruptAll()
			if !signalWithin(sigs, steps[1]) {
				childproc.KillAll()
				if !signalWithin(sigs, steps[2]) {
					msg = fmt.Sprintf("still running %s after the signal: stopped at once; its processes are gone", steps[0]+steps[1]+steps[2])
				}
			}
		}
		childproc.StopAll()
		fmt.Fprintf(os.Stderr, "%s: %s\n", name, msg)
		os.Exit(130)
	}()
	err := run(ctx)
	signal.Stop(sigs)
	cancel()
	childproc.StopAll()
	if err != nil {
		// The error may carry the repository's data (an env file's
		// value, the compiler's output on a file's name): escaped line by
		// line (termsafe.Escape), as git writes such a path (core.quotePath).
		fmt.Fprintf(termsafe.Escaper(os.Stderr), "%s: %v\n", name, err)
		os.Exit(1)
	}
}

// signalWithin says whether a signal arrives on sigs within d.
func signalWithin(sigs <-chan os.Signal, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-sigs:
		return true
	case <-t.C:
		return false
	}
}
