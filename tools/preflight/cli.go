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
	n, err := run(ctx, *format, *output, *dir, *render, stdout)
	switch {
	case err != nil:
		fmt.Fprintln(stderr, "preflight:", err)
		return 2
	case n > 0:
		fmt.Fprintf(stderr, "preflight: %d findings\n", n)
		return 1
	}
	return 0
}

// run is Main after its flags: the number of findings it wrote, or why it
// could not check.
func run(ctx context.Context, format, output, root, render string, stdout io.Writer) (int, error) {
	if format != "text" && format != "sarif" {
		return 0, fmt.Errorf("--format %q: text or sarif", format)
	}
	book, err := LoadBook()
	if err != nil {
		return 0, err
	}
	if render != "" {
		raw, err := os.ReadFile(render)
		if err != nil {
			return 0, err
		}
		doc, err := RenderRules(string(raw), book.AllRules())
		if err != nil {
			return 0, err
		}
		return 0, os.WriteFile(render, []byte(doc), 0o644)
	}
	if root == "" {
		if root, err = srctree.Root(); err != nil {
			return 0, err
		}
	}
	findings, err := Check(ctx, root)
	if err != nil {
		return 0, err
	}
	out := stdout
	if output != "" {
		f, err := os.Create(output)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		out = f
	}
	if format == "sarif" {
		return len(findings), WriteSARIF(out, book.AllRules(), findings)
	}
	for _, f := range findings {
		fmt.Fprintln(out, termsafe.Escape(f.String()))
	}
	return len(findings), nil
}
