// Package proc runs the commands of the tooling: it ends them on SIGINT and
// SIGTERM with every child they started (internal/childproc) stopped and
// their temporary folders removed.
package proc

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/plantstore/plantstore/internal/childproc"
	"github.com/plantstore/plantstore/tools/trace"
)

// ExitOnSignal makes the first SIGINT or SIGTERM stop every child, remove
// the temporary folders and exit with status 130, saying so on stderr. For
// tools that run to completion (bench, load, smoke); servers shut down
// gracefully on their context instead.
func ExitOnSignal(name string) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-c
		childproc.StopAll()
		fmt.Fprintf(os.Stderr, "%s: stopped by %v; its processes and temporary files are gone\n", name, s)
		os.Exit(130)
	}()
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
// error", escaped, and the exit status is 1; the children are stopped
// either way.
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
			childproc.StopAll()
			<-sigs
		}
		childproc.StopAll()
		fmt.Fprintf(os.Stderr, "%s: stopped at once by a second signal; its processes are gone\n", name)
		os.Exit(130)
	}()
	err := run(ctx)
	signal.Stop(sigs)
	cancel()
	childproc.StopAll()
	if err != nil {
		// The error may carry the repository's data (an env file's
		// value, the compiler's output on a file's name): escaped line by
		// line (trace.Escape), as git writes such a path (core.quotePath).
		fmt.Fprintf(trace.Escaper(os.Stderr), "%s: %v\n", name, err)
		os.Exit(1)
	}
}
