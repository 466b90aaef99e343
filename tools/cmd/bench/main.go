// Command bench measures Plant Store against its floors, side by side in one
// run (these machines are shared and noisy: medians and ratios, not absolute
// times), and prints each figure next to its floor and goal. `make bench`
// runs it after the Go benchmarks; docs/performance.md records its output.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/plantstore/plantstore/samlocal/proc"
	"github.com/plantstore/plantstore/tools/loadgen"
)

func main() {
	proc.ExitOnSignal("bench")
	defer childproc.StopAll() // children still running on an orderly exit (see package childproc)
	if err := run(os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		childproc.StopAll()
		os.Exit(1)
	}
}

type options struct {
	starts    int
	warm      int
	loadFor   time.Duration
	conns     int
	only      string      // comma-separated steps, "" for all
	compare   comparisons // label=path: other bootstraps for the cold starts
	reference string      // a checkout of aws-samples/serverless-go-demo
	jsonOut   string      // where to write the report
	render    string      // a document to render the report into
}

// comparisons is the repeatable -compare flag: bootstraps built elsewhere
// (another SDK line, a reference sample's own build), each started
// interleaved with ours.
type comparisons []comparison

type comparison struct{ label, path string }

func (c *comparisons) String() string { return fmt.Sprint(*c) }

func (c *comparisons) Set(v string) error {
	label, path, ok := strings.Cut(v, "=")
	if !ok || label == "" || path == "" {
		return fmt.Errorf("want label=path, got %q", v)
	}
	*c = append(*c, comparison{label, path})
	return nil
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	var o options
	fs.IntVar(&o.starts, "starts", 15, "cold starts per binary")
	fs.IntVar(&o.warm, "warm", 400, "warm invocations per function")
	fs.DurationVar(&o.loadFor, "load", 4*time.Second, "length of each local API load round")
	fs.IntVar(&o.conns, "conns", 32, "concurrent connections in the load rounds")
	fs.StringVar(&o.only, "only", "", "run only these steps (comma-separated: sizes, cold, dynamo, invocations, local, chain)")
	fs.Var(&o.compare, "compare", "label=path: a bootstrap built elsewhere (another SDK line, a reference sample), started interleaved with the others; repeatable")
	fs.StringVar(&o.reference, "reference", "", "a checkout of github.com/aws-samples/serverless-go-demo: its put-product joins the cold starts, built by its own Makefile's recipe and by ours")
	fs.StringVar(&o.jsonOut, "json", "", "write the report (every row, the machine, the date) to this file")
	fs.StringVar(&o.render, "render", "", "render the report into these documents' fig markers (comma-separated paths or globs: 'README.md,docs/*.md'); none is written unless all render")
	from := fs.String("from", "", "with -render: render this report file (docs/bench.json) instead of measuring")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *from != "" {
		r, err := readReport(*from)
		if err != nil {
			return err
		}
		return renderInto(o.render, r)
	}
	dir, err := childproc.TempDir("plantstore-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := &bench{dir: dir, out: out, opts: o, report: Report{
		Date:    time.Now().UTC().Format(time.DateOnly),
		Machine: fmt.Sprintf("%s/%s, %d CPUs, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version()),
		Command: "go run ./tools/cmd/bench " + strings.Join(args[1:], " "),
	}}
	if o.reference != "" {
		refs, err := buildReference(o.reference, dir)
		if err != nil {
			return err
		}
		b.opts.compare = append(b.opts.compare, refs...)
	}
	fmt.Fprintf(out, "machine: %s\n\n%s\n", b.report.Machine, header)
	steps := []struct {
		name string
		run  func() error
	}{{"sizes", b.sizes}, {"cold", b.coldStarts}, {"dynamo", b.dynamoCost}, {"invocations", b.invocations}, {"local", b.localAPI}, {"chain", b.chain}}
	for _, step := range steps {
		if o.only != "" && !slices.Contains(strings.Split(o.only, ","), step.name) {
			continue
		}
		if err := step.run(); err != nil {
			return err
		}
	}
	if o.jsonOut != "" {
		if err := writeReport(o.jsonOut, b.report); err != nil {
			return err
		}
	}
	if o.render != "" {
		return renderInto(o.render, b.report)
	}
	return nil
}

type bench struct {
	dir  string
	out  io.Writer
	opts options
	host map[string]string // host-architecture bootstraps, built once

	report Report
}

// row prints a figure beside its floor and records it in the report.
func (b *bench) row(figure, value, floor, ratio, goal string) {
	r := Row{Figure: figure, Value: value, Floor: floor, Ratio: ratio, Goal: goal}
	b.report.Rows = append(b.report.Rows, r)
	fmt.Fprintln(b.out, r)
}

// build makes a Lambda bootstrap of pkg through `make build-lambda`, the same
// recipe as the functions' SAM targets.
func (b *bench) build(pkg, goarch string) (string, error) {
	out := filepath.Join(b.dir, goarch, strings.ReplaceAll(strings.Trim(pkg, "./"), "/", "_"))
	cmd := exec.Command("make", "--no-print-directory", "-s", "build-lambda", "PKG="+pkg, "ARTIFACTS_DIR="+out, "GOARCH="+goarch)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build %s: %v\n%s", pkg, err, msg)
	}
	return filepath.Join(out, "bootstrap"), nil
}

const (
	createplant = "./functions/createplant"
	authorizer  = "./functions/authorizer"
	pretraffic  = "./functions/pretraffic"
	hello       = "./tools/cmd/bench/testdata/hello"
	rawput      = "./tools/cmd/bench/testdata/rawput"
)

func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

func (b *bench) sizes() error {
	size := map[string]int64{}
	for _, pkg := range []string{createplant, authorizer, pretraffic, hello} {
		path, err := b.build(pkg, "arm64")
		if err != nil {
			return err
		}
		st, err := os.Stat(path)
		if err != nil {
			return err
		}
		size[pkg] = st.Size()
	}
	b.row("bootstrap size, createplant (arm64)", mib(size[createplant]), "hello "+mib(size[hello]), ratio(float64(size[createplant]), float64(size[hello])), "<= 8.5 MiB")
	b.row("bootstrap size, authorizer (arm64)", mib(size[authorizer]), "hello "+mib(size[hello]), ratio(float64(size[authorizer]), float64(size[hello])), "<= 6.5 MiB")
	b.row("bootstrap size, PreTraffic hook (arm64)", mib(size[pretraffic]), "hello "+mib(size[hello]), ratio(float64(size[pretraffic]), float64(size[hello])), "")
	return nil
}

func ratio(v, floor float64) string { return fmt.Sprintf("%.2fx", v/floor) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1000) }

func median(ds []time.Duration) time.Duration { return loadgen.Percentile(ds, 50) }
