//go:build !unix

package cli

import "testing"

// stopsItsProcesses stops the server; ps is Unix's, so nothing more is
// checked here.
func stopsItsProcesses(_ *testing.T, stop func()) { stop() }
