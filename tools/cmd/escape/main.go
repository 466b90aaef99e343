// Command escape copies standard input to standard output with every line
// escaped by termsafe.Escape (termsafe.CopyEscaped), the one rule by which the
// local tools print what they did not write themselves. The Makefile passes through it the builds
// it runs before make run, invoke, start-api and start-lambda start: go
// build prints the repository's file names as they are, and a branch under
// review may name a file with ESC ]52 (the clipboard) or a CSI sequence.
package main

import (
	"fmt"
	"os"

	"github.com/plantstore/plantstore/samlocal/termsafe"
)

func main() {
	if err := termsafe.CopyEscaped(os.Stdout, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "escape:", err)
		os.Exit(1)
	}
}
