// Command preflight applies the deploy guards, the rule book of
// tools/preflight, to the repository it runs in: one line per finding,
// `file:line: ID: the danger; fix: ...`, in the file a person edits, and
// exit status 1 when there is any. With --format sarif it writes SARIF
// 2.1.0 for GitHub's code scanning instead (to --output, or stdout). With
// -render docs/security.md it writes that document's rule table from the
// rules' METADATA.
package main

import (
	"context"
	"os"

	"github.com/plantstore/plantstore/tools/preflight"
)

func main() {
	os.Exit(preflight.Main(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
