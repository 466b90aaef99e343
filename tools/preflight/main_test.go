package preflight

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestMain runs the tests with the collector at a quarter of its default
// pace (GOGC=400), unless GOGC says otherwise: evaluating the book over
// each edit's facts allocates fast. Measured here, the package's test
// binary, warm, side by side: 80 s of CPU and 1.4 GB of memory at most at
// GOGC=100; 64-70 s and 2.4-3.3 GB at 400.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	os.Exit(m.Run())
}
