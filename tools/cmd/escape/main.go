// Command escape copies standard input to standard output with every line
// escaped by trace.Escape, the one rule by which the local tools print what
// they did not write themselves. The Makefile passes through it the builds
// it runs before make run, invoke, start-api and start-lambda start: go
// build prints the repository's file names as they are, and a branch under
// review may name a file with ESC ]52 (the clipboard) or a CSI sequence.
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/plantstore/plantstore/tools/trace"
)

func main() {
	if err := copyEscaped(os.Stdout, os.Stdin); err != nil {
		fmt.Fprintln(os.Stderr, "escape:", err)
		os.Exit(1)
	}
}

// copyEscaped writes each line of r to w escaped, a last line without its
// newline included.
func copyEscaped(w io.Writer, r io.Reader) error {
	in := bufio.NewReader(r)
	out := bufio.NewWriter(w)
	for {
		line, err := in.ReadString('\n')
		if line != "" {
			nl := line[len(line)-1] == '\n'
			if nl {
				line = line[:len(line)-1]
			}
			_, _ = out.WriteString(trace.Escape(line))
			if nl {
				_ = out.WriteByte('\n')
			}
			// A build's lines reach the terminal as they come.
			if ferr := out.Flush(); ferr != nil {
				return ferr
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
