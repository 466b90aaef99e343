package localtest

import (
	"testing"

	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/samlocal/trace"
)

// samlocal's trace reads the request and step lines of a function by
// their names (trace.LogMessage ...); Plant Store's httpapi writes them.
// A rename on one side is a rename on the other.
func TestTheTraceReadsTheNamesHttpapiWrites(t *testing.T) {
	t.Parallel()
	for _, n := range [][2]string{
		{trace.LogMessage, httpapi.LogMessage}, {trace.LogOutcome, httpapi.LogOutcome}, {trace.LogDuration, httpapi.LogDuration},
		{trace.LogRequest, httpapi.LogRequest}, {trace.StepToken, httpapi.StepToken}, {trace.StepStore, httpapi.StepStore},
		{trace.StepSubject, httpapi.StepSubject}, {trace.StepReason, httpapi.StepReason}, {trace.StepOp, httpapi.StepOp},
		{trace.StepError, httpapi.StepError},
	} {
		if n[0] != n[1] {
			t.Errorf("the trace reads %q where httpapi writes %q", n[0], n[1])
		}
	}
}
