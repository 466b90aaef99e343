package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
)

// coldStart starts bin once and returns the time from process start to its
// first poll of the Runtime API.
func coldStart(bin string, env []string, output io.Writer) (time.Duration, error) {
	rt, err := lambdaemu.Start()
	if err != nil {
		return 0, err
	}
	defer rt.Close()
	start := time.Now()
	fn, err := rt.Run(bin, env, output)
	if err != nil {
		return 0, err
	}
	defer fn.Stop()
	select {
	case t := <-rt.FirstPoll():
		return t.Sub(start), nil
	case doc := <-rt.InitError():
		return 0, fmt.Errorf("%s: init error %s", bin, doc)
	case <-time.After(10 * time.Second):
		return 0, fmt.Errorf("%s did not poll within 10s", bin)
	}
}

// buildReference builds the reference sample's put-product for this machine
// twice: by the sample's own recipe (its Makefile: `go build -o bootstrap`
// with CGO_ENABLED=0, no other flags; we keep its GOOS and only take the host
// architecture so it can start here) and by ours (LAMBDA_FLAGS), which tells
// the flags' share from the code's.
func buildReference(src, dir string) ([]comparison, error) {
	pkg := filepath.Join(src, "functions", "put-product")
	if _, err := os.Stat(pkg); err != nil {
		return nil, fmt.Errorf("-reference: %w (want a checkout of github.com/aws-samples/serverless-go-demo)", err)
	}
	recipes := []struct {
		label string
		flags []string
	}{
		{"sample, own build", nil},
		{"sample, our flags", []string{"-tags", "lambda.norpc", "-trimpath", "-ldflags=-s -w"}},
	}
	var out []comparison
	for i, r := range recipes {
		bin := filepath.Join(dir, "reference", fmt.Sprint(i), "bootstrap")
		cmd := exec.Command("go", append(append([]string{"build"}, r.flags...), "-o", bin, ".")...)
		cmd.Dir = pkg
		cmd.Env = append(os.Environ(), "GOOS=linux", "GOARCH="+runtime.GOARCH, "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build the reference sample (%s): %v\n%s", r.label, err, msg)
		}
		out = append(out, comparison{r.label, bin})
	}
	return out, nil
}

func (b *bench) hostBinaries() (map[string]string, error) {
	if b.host != nil {
		return b.host, nil
	}
	bins := map[string]string{}
	for _, pkg := range []string{createplant, authorizer, pretraffic, hello, rawput} {
		path, err := b.build(pkg, runtime.GOARCH)
		if err != nil {
			return nil, err
		}
		bins[pkg] = path
	}
	b.host = bins
	return bins, nil
}

func (b *bench) coldStarts() error {
	bins, err := b.hostBinaries()
	if err != nil {
		return err
	}
	env := map[string][]string{
		createplant: {"TABLE_NAME=plants", "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x"},
		authorizer:  {"AUTH_ISSUER=" + fixtures.Issuer, "AUTH_AUDIENCE=" + fixtures.Audience, "AUTH_HS256_SECRET=" + fixtures.Secret},
		// The hook's environment in the template, with a local issuer's
		// settings in place of the stack's user pool.
		pretraffic: {"CREATEPLANT_VERSION=CreatePlantFunction", "AUTHORIZER_VERSION=AuthorizerFunction", "METHOD_ARN=" + fixtures.LocalMethodARN,
			"AUTH_ISSUER=" + fixtures.Issuer, "AUTH_AUDIENCE=" + fixtures.Audience, "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x"},
		hello:  nil,
		rawput: {"TABLE_NAME=plants", "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x"},
	}
	order := []string{hello, createplant, authorizer, pretraffic, rawput}
	for _, c := range b.opts.compare {
		// createplant's environment, plus TABLE for aws-samples/serverless-go-demo,
		// whose functions panic at init without it.
		bins[c.label], env[c.label] = c.path, append(slices.Clip(env[createplant]), "TABLE=plants")
		order = append(order, c.label)
	}
	times := map[string][]time.Duration{}
	for range b.opts.starts { // interleaved, so that noise falls on all alike
		for _, pkg := range order {
			d, err := coldStart(bins[pkg], env[pkg], io.Discard)
			if err != nil {
				return err
			}
			times[pkg] = append(times[pkg], d)
		}
	}
	h := median(times[hello])
	n := fmt.Sprintf(" (median of %d)", b.opts.starts)
	b.row("cold start to first poll, createplant"+n, ms(median(times[createplant])), "hello "+ms(h), ratio(float64(median(times[createplant])), float64(h)), "<= 1.30x")
	b.row("cold start to first poll, authorizer"+n, ms(median(times[authorizer])), "hello "+ms(h), ratio(float64(median(times[authorizer])), float64(h)), "")
	b.row("cold start to first poll, PreTraffic hook"+n, ms(median(times[pretraffic])), "hello "+ms(h), ratio(float64(median(times[pretraffic])), float64(h)), "")
	b.row("cold start to first poll, raw PutItem Lambda"+n, ms(median(times[rawput])), "hello "+ms(h), ratio(float64(median(times[rawput])), float64(h)), "(reference: the SDK's own cost)")
	c := median(times[createplant])
	for _, o := range b.opts.compare {
		m := median(times[o.label])
		b.row("cold start to first poll, "+o.label, ms(m), "hello "+ms(h), ratio(float64(m), float64(h)), "(comparison)")
		b.row("  createplant against it", ms(c), o.label+" "+ms(m), ratio(float64(c), float64(m)), "< 1.00x: ours starts first")
	}
	if b.opts.reference == "" { // the goal stays in view; the sample is not ours to fetch
		b.row("cold start against aws-samples/serverless-go-demo", "not run", "", "", "< 1.00x: make bench REFERENCE=<its checkout>")
	}
	// What the SDK pins in go.mod buy: the allocations of package init do not
	// depend on the machine's load, unlike the times above.
	cp, err := packageInit(bins[createplant], env[createplant])
	if err != nil {
		return err
	}
	hi, err := packageInit(bins[hello], env[hello])
	if err != nil {
		return err
	}
	initRow := func(label string, t initTrace) {
		b.row("package init, "+label+" (GODEBUG=inittrace=1)", fmt.Sprintf("%d allocs", t.allocs), fmt.Sprintf("hello %d allocs", hi.allocs), "", fmt.Sprintf("%.0f KB (hello %.0f KB)", float64(t.bytes)/1000, float64(hi.bytes)/1000))
	}
	initRow("createplant", cp)
	for _, o := range b.opts.compare {
		t, err := packageInit(o.path, env[o.label])
		if err != nil {
			return err
		}
		initRow(o.label, t)
	}
	return nil
}

type initTrace struct{ bytes, allocs int64 }

// packageInit starts bin once with GODEBUG=inittrace=1 and sums what the
// runtime reports of every package's init.
func packageInit(bin string, env []string) (initTrace, error) {
	var out strings.Builder
	if _, err := coldStart(bin, append(slices.Clip(env), "GODEBUG=inittrace=1"), &out); err != nil {
		return initTrace{}, err
	}
	return parseInitTrace(out.String())
}

// An inittrace line, as the runtime prints it (runtime/proc.go, doInit1):
// "init internal/bytealg @0.008 ms, 0 ms clock, 0 bytes, 0 allocs".
var initLine = regexp.MustCompile(`(?m)^init \S+ @.*, (\d+) bytes, (\d+) allocs$`)

func parseInitTrace(out string) (initTrace, error) {
	var t initTrace
	ms := initLine.FindAllStringSubmatch(out, -1)
	if len(ms) == 0 {
		return t, fmt.Errorf("no inittrace lines in the output:\n%s", out)
	}
	for _, m := range ms {
		b, err1 := strconv.ParseInt(m[1], 10, 64)
		a, err2 := strconv.ParseInt(m[2], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return t, err
		}
		t.bytes, t.allocs = t.bytes+b, t.allocs+a
	}
	return t, nil
}
