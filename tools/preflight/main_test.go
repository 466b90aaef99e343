package preflight

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the collector at a quarter of its default
// pace (GOGC=400), unless GOGC says otherwise: evaluating the book over
// each edit's facts allocates fast, and the collector's share of the CPU
// is traded for memory. To weigh the trade again, run the test binary
// warm with GOGC=100 and GOGC=400 side by side under /usr/bin/time -f
// '%U %S %M' (the figures of each run are in the commit that set it).
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
