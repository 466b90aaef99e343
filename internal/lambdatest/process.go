package lambdatest

import (
	"context"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

// Process is one function's bootstrap on a Runtime API of its own, as one
// Lambda execution environment runs it, for one test.
type Process struct {
	Runtime *lambdaemu.Server
	Output  proctest.Output // what the process wrote, stdout and stderr
	fn      *lambdaemu.Function
}

// hangBound is how long past its deadline an invocation may go unanswered
// before Invoke fails the test: it catches a hang, and is no stopwatch.
const hangBound = time.Minute

// Launch starts bin with env (plus the variables Lambda sets) on a fresh
// Runtime API; the test's end stops both.
func Launch(t testing.TB, bin string, env []string) *Process {
	t.Helper()
	rt, err := lambdaemu.Start()
	if err != nil {
		t.Fatal(err)
	}
	p := &Process{Runtime: rt}
	if p.fn, err = rt.Run(bin, env, &p.Output); err != nil {
		rt.Close()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.fn.Stop()
		rt.Close()
	})
	return p
}

// Invoke hands payload to the function with timeout as its deadline and
// returns its answer, a failure (Result.Error) included; t fails when no
// answer comes at all.
func (p *Process) Invoke(t testing.TB, payload []byte, timeout time.Duration) lambdaemu.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout+hangBound)
	defer cancel()
	res, err := p.Runtime.Invoke(ctx, payload, timeout)
	if err != nil {
		t.Fatalf("%v\nthe function's output:\n%s", err, p.Output.String())
	}
	return res
}

// Stop ends the process and so waits for every line it wrote.
func (p *Process) Stop() { p.fn.Stop() }
