package lambdaemu

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A function that cannot start (its executable is missing, say, as when
// nothing built it) is answered as Lambda answers a runtime that cannot
// start: an error document naming the cause (Runtime.InvalidEntrypoint),
// and the same line on the terminal; never a bare error that the Invoke API
// would turn into a 500 with the cause only in a log.
func TestAFunctionThatCannotStartSaysWhy(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	fns := NewFunctions(map[string]Spec{"Fn": {Bootstrap: "/nonexistent/bootstrap", Timeout: time.Second}}, &out)
	defer fns.Close()
	answer, failed, err := fns.Invoke(context.Background(), "Fn", []byte(`{}`))
	if err != nil || !failed {
		t.Fatalf("Invoke = %s, %v, %v; want a function error", answer, failed, err)
	}
	for _, want := range []string{`"errorType":"Runtime.InvalidEntrypoint"`, "Fn did not start", "/nonexistent/bootstrap"} {
		if !strings.Contains(string(answer), want) {
			t.Errorf("the answer %s does not hold %s", answer, want)
		}
	}
	if !strings.Contains(out.String(), "Fn did not start") {
		t.Errorf("the terminal shows nothing of it: %q", out.String())
	}
	if err := fns.StartAll(); err == nil || !strings.Contains(err.Error(), "Fn did not start") {
		t.Errorf("StartAll (--warm-containers EAGER) = %v, want the cause", err)
	}
}
