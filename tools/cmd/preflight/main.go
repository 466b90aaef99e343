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
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/termsafe"
	"github.com/plantstore/plantstore/tools/preflight"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("preflight", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "text", "text, or sarif (SARIF 2.1.0 for GitHub code scanning)")
	output := fs.String("output", "", "write to this file instead of stdout")
	dir := fs.String("C", "", "the repository (default: the one this command runs in)")
	render := fs.String("render", "", "write the rule table of this document (docs/security.md) from the rules' METADATA, and check nothing")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *format != "text" && *format != "sarif" {
		fmt.Fprintf(stderr, "preflight: --format %q: text or sarif\n", *format)
		return 2
	}
	root := *dir
	if root == "" {
		r, err := srctree.Root()
		if err != nil {
			fmt.Fprintln(stderr, "preflight:", err)
			return 2
		}
		root = r
	}
	book, err := preflight.LoadBook()
	if err != nil {
		fmt.Fprintln(stderr, "preflight:", err)
		return 2
	}
	if *render != "" {
		raw, err := os.ReadFile(*render)
		if err == nil {
			var doc string
			doc, err = preflight.RenderRules(string(raw), book.AllRules())
			if err == nil {
				err = os.WriteFile(*render, []byte(doc), 0o644)
			}
		}
		if err != nil {
			fmt.Fprintln(stderr, "preflight:", err)
			return 2
		}
		return 0
	}
	findings, err := preflight.Check(ctx, root)
	if err != nil {
		fmt.Fprintln(stderr, "preflight:", err)
		return 2
	}
	out := stdout
	if *output != "" {
		f, err := os.Create(*output)
		if err != nil {
			fmt.Fprintln(stderr, "preflight:", err)
			return 2
		}
		defer f.Close()
		out = f
	}
	if *format == "sarif" {
		if err := preflight.WriteSARIF(out, book.AllRules(), findings); err != nil {
			fmt.Fprintln(stderr, "preflight:", err)
			return 2
		}
	} else {
		for _, f := range findings {
			fmt.Fprintln(out, termsafe.Escape(f.String()))
		}
	}
	if len(findings) > 0 {
		fmt.Fprintf(stderr, "preflight: %d findings\n", len(findings))
		return 1
	}
	return 0
}
