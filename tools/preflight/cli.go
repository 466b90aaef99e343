package preflight

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/termsafe"
)

// Main is the command preflight (tools/cmd/preflight) with args, writing
// to stdout and stderr, and answers its exit status: 0 when the rules find
// nothing, 1 when they find something, 2 when they cannot run.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
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
	book, err := LoadBook()
	if err != nil {
		fmt.Fprintln(stderr, "preflight:", err)
		return 2
	}
	if *render != "" {
		raw, err := os.ReadFile(*render)
		if err == nil {
			var doc string
			doc, err = RenderRules(string(raw), book.AllRules())
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
	findings, err := Check(ctx, root)
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
		if err := WriteSARIF(out, book.AllRules(), findings); err != nil {
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
