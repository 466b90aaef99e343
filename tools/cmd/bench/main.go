// Command bench measures Plant Store against its floors, side by side in one
// run (these machines are shared and noisy: medians and ratios, not absolute
// times), and prints each figure next to its floor and goal. `make bench`
// runs it after the Go benchmarks; docs/performance.md records its output.
package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/tools/emulator"
	"github.com/plantstore/plantstore/tools/fixtures"
	"github.com/plantstore/plantstore/tools/gateway"
	"github.com/plantstore/plantstore/tools/proc"
	"github.com/plantstore/plantstore/tools/runtimeapi"
	"github.com/plantstore/plantstore/tools/samtemplate"
	"github.com/plantstore/plantstore/tools/serverproc"
)

func main() {
	defer proc.StopAll() // children still running on an orderly exit (see package proc)
	if err := run(os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		proc.StopAll()
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
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "plantstore-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := &bench{dir: dir, out: out, opts: o}
	if o.reference != "" {
		refs, err := buildReference(o.reference, dir)
		if err != nil {
			return err
		}
		b.opts.compare = append(b.opts.compare, refs...)
	}
	fmt.Fprintf(out, "machine: %s/%s, %d CPUs, %s\n\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	fmt.Fprintf(out, "%-58s %12s   %-28s %7s  %s\n", "figure", "value", "floor", "ratio", "goal")
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
	return nil
}

type bench struct {
	dir  string
	out  io.Writer
	opts options
	host map[string]string // host-architecture bootstraps, built once
}

func (b *bench) row(figure, value, floor, ratio, goal string) {
	fmt.Fprintf(b.out, "%-58s %12s   %-28s %7s  %s\n", figure, value, floor, ratio, goal)
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
	hello       = "./tools/cmd/bench/testdata/hello"
	rawput      = "./tools/cmd/bench/testdata/rawput"
)

func mib(n int64) string { return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20)) }

func (b *bench) sizes() error {
	size := map[string]int64{}
	for _, pkg := range []string{createplant, authorizer, hello} {
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
	return nil
}

func ratio(v, floor float64) string { return fmt.Sprintf("%.2fx", v/floor) }

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d.Nanoseconds())/1000) }

func median(ds []time.Duration) time.Duration { return percentile(ds, 50) }

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(0, min(len(s)-1, i-1))]
}

// coldStart starts bin once and returns the time from process start to its
// first poll of the Runtime API.
func coldStart(bin string, env []string, output io.Writer) (time.Duration, error) {
	rt, err := runtimeapi.Start()
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
	for _, pkg := range []string{createplant, authorizer, hello, rawput} {
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
		hello:       nil,
		rawput:      {"TABLE_NAME=plants", "AWS_REGION=us-east-1", "AWS_ACCESS_KEY_ID=x", "AWS_SECRET_ACCESS_KEY=x"},
	}
	order := []string{hello, createplant, authorizer, rawput}
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

// countingAPI asks DynamoDB for the capacity every call consumes.
type countingAPI struct {
	dynamo.API
	mu                  sync.Mutex
	puts, gets          int
	writeUnits, readUns float64
}

func (c *countingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.PutItem(ctx, in, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.puts++
	if out != nil && out.ConsumedCapacity != nil {
		c.writeUnits += units(out.ConsumedCapacity.WriteCapacityUnits, out.ConsumedCapacity.CapacityUnits)
	}
	return out, err
}

func (c *countingAPI) GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error) {
	in.ReturnConsumedCapacity = types.ReturnConsumedCapacityTotal
	out, err := c.API.GetItem(ctx, in, opts...)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gets++
	if out != nil && out.ConsumedCapacity != nil {
		c.readUns += units(out.ConsumedCapacity.ReadCapacityUnits, out.ConsumedCapacity.CapacityUnits)
	}
	return out, err
}

func units(specific, total *float64) float64 {
	if specific != nil {
		return *specific
	}
	if total != nil {
		return *total
	}
	return 0
}

func (b *bench) dynamoCost() error {
	srv, err := emulator.StartMoto()
	if err != nil {
		return err
	}
	defer srv.Stop()
	ctx := context.Background()
	if err := emulator.CreateTable(ctx, srv.Client(), "plants"); err != nil {
		return err
	}
	api := &countingAPI{API: srv.Client()}
	store := dynamo.New(api, "plants", time.Now)
	const n = 50
	tag := "indoor"
	for i := range n {
		if _, err := store.Create(ctx, plant.NewPlant{ID: int64(i), Name: "Ficus lyrata", Tag: &tag}); err != nil {
			return err
		}
	}
	b.row(fmt.Sprintf("DynamoDB per create (%d on moto)", n),
		fmt.Sprintf("%.2f WRU", api.writeUnits/n), "1 PutItem = 1 WRU, 0 reads",
		fmt.Sprintf("%d/%d", api.puts, api.gets), fmt.Sprintf("puts/gets %d/0, %.2f RRU", n, api.readUns))
	return nil
}

// eventFor is the with-tag fixture carrying plant id.
func eventFor(base events.APIGatewayProxyRequest, id int) []byte {
	base.Body = fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, id)
	raw, _ := json.Marshal(base)
	return raw
}

type lambdaProc struct {
	rt *runtimeapi.Server
	fn *runtimeapi.Function
}

func startLambda(bin string, env []string) (*lambdaProc, time.Time, error) {
	rt, err := runtimeapi.Start()
	if err != nil {
		return nil, time.Time{}, err
	}
	start := time.Now()
	fn, err := rt.Run(bin, env, io.Discard)
	if err != nil {
		rt.Close()
		return nil, start, err
	}
	return &lambdaProc{rt: rt, fn: fn}, start, nil
}

func (l *lambdaProc) stop() { l.fn.Stop(); l.rt.Close() }

func (l *lambdaProc) invoke(payload []byte) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := l.rt.Invoke(ctx, payload, 6*time.Second)
	if err != nil {
		return 0, err
	}
	if res.Error != nil {
		return 0, fmt.Errorf("function error %s", res.Error)
	}
	var resp events.APIGatewayProxyResponse
	if err := json.Unmarshal(res.Payload, &resp); err != nil || resp.StatusCode != 200 {
		return 0, fmt.Errorf("answer %s", res.Payload)
	}
	return time.Since(start), nil
}

// invocations measures the first and the warm invocations of createplant
// beside rawput, both writing to moto.
func (b *bench) invocations() error {
	bins, err := b.hostBinaries()
	if err != nil {
		return err
	}
	srv, err := emulator.StartMoto()
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := emulator.CreateTable(context.Background(), srv.Client(), "plants"); err != nil {
		return err
	}
	var base events.APIGatewayProxyRequest
	if err := json.Unmarshal(mustRead("events/createplant-with-tag.json"), &base); err != nil {
		return err
	}
	env := append(srv.Env(), "TABLE_NAME=plants")
	id := 1_000_000

	// First invocation: process start to the answer of the first create.
	first := map[string][]time.Duration{}
	for range max(5, b.opts.starts/2) {
		for _, pkg := range []string{rawput, createplant} {
			l, start, err := startLambda(bins[pkg], env)
			if err != nil {
				return err
			}
			id++
			_, err = l.invoke(eventFor(base, id))
			first[pkg] = append(first[pkg], time.Since(start))
			l.stop()
			if err != nil {
				return fmt.Errorf("%s first invocation: %w", pkg, err)
			}
		}
	}
	b.row(fmt.Sprintf("first invocation, createplant (median of %d)", len(first[createplant])), ms(median(first[createplant])), "raw PutItem "+ms(median(first[rawput])), ratio(float64(median(first[createplant])), float64(median(first[rawput]))), "")

	// Warm: both processes up, invocations alternating between them.
	procs := map[string]*lambdaProc{}
	for _, pkg := range []string{rawput, createplant} {
		l, _, err := startLambda(bins[pkg], env)
		if err != nil {
			return err
		}
		defer l.stop()
		procs[pkg] = l
	}
	warm := map[string][]time.Duration{}
	for i := range 30 + b.opts.warm {
		for _, pkg := range []string{rawput, createplant} {
			id++
			d, err := procs[pkg].invoke(eventFor(base, id))
			if err != nil {
				return fmt.Errorf("%s warm invocation: %w", pkg, err)
			}
			if i >= 30 { // the first 30 warm the connections and the runtime
				warm[pkg] = append(warm[pkg], d)
			}
		}
	}
	c, r := warm[createplant], warm[rawput]
	b.row(fmt.Sprintf("warm invocation p50, createplant (%d)", len(c)), ms(median(c)), "raw PutItem "+ms(median(r)), ratio(float64(median(c)), float64(median(r))), "<= 1.10x")
	b.row(fmt.Sprintf("warm invocation p99, createplant (%d)", len(c)), ms(percentile(c, 99)), "raw PutItem "+ms(percentile(r, 99)), ratio(float64(percentile(c, 99)), float64(percentile(r, 99))), "")
	return nil
}

func mustRead(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return b
}

type loadResult struct {
	rps    float64
	p99    time.Duration
	errors int64
	n      int

	serverCPU, loadCPU time.Duration // spent in the round by the server and by this process
	cpuErr             error         // the first reason they could not be read (/proc is Linux's)
}

// measuredLoad is one load round on srv, with the CPU time that the server
// and the load generator (this process) spent on it.
func measuredLoad(srv *serverproc.Server, token string, conns int, d time.Duration, ids *atomic.Int64) loadResult {
	s0, err1 := srv.CPUTime()
	g0, err2 := serverproc.CPUTime(0)
	r := load(srv.URL, token, conns, d, ids)
	s1, err3 := srv.CPUTime()
	g1, err4 := serverproc.CPUTime(0)
	r.serverCPU, r.loadCPU, r.cpuErr = s1-s0, g1-g0, cmp.Or(err1, err2, err3, err4)
	return r
}

// cpuPerRequest is the CPU time per request over all rounds.
func cpuPerRequest(rs []loadResult) (server, loadgen time.Duration, err error) {
	n := 0
	for _, r := range rs {
		server, loadgen, n = server+r.serverCPU, loadgen+r.loadCPU, n+r.n
		err = cmp.Or(err, r.cpuErr)
	}
	if err == nil && n == 0 {
		err = errors.New("no requests")
	}
	if err != nil {
		return 0, 0, err
	}
	return server / time.Duration(n), loadgen / time.Duration(n), err
}

// load drives url with conns workers posting unique plants for d.
func load(url, token string, conns int, d time.Duration, ids *atomic.Int64) loadResult {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	var errs atomic.Int64
	lat := make([][]time.Duration, conns)
	stop := time.Now().Add(d)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			for time.Now().Before(stop) {
				id := ids.Add(1)
				req, _ := http.NewRequest(http.MethodPost, url+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, id)))
				req.Header.Set("Content-Type", "application/json")
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				start := time.Now()
				resp, err := client.Do(req)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				lat[w] = append(lat[w], time.Since(start))
				if err != nil || resp.StatusCode != 200 {
					errs.Add(1)
				}
			}
		})
	}
	wg.Wait()
	client.CloseIdleConnections()
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return loadResult{rps: float64(len(all)) / d.Seconds(), p99: percentile(all, 99), errors: errs.Load(), n: len(all)}
}

func (b *bench) localAPI() error {
	localapi, err := serverproc.Build(b.dir, "./cmd/localapi")
	if err != nil {
		return err
	}
	bare, err := serverproc.Build(b.dir, "./tools/cmd/bench/testdata/bare")
	if err != nil {
		return err
	}
	// As make run starts it: info logs (here to /dev/null).
	api, err := serverproc.Start(localapi, []string{"PORT=0", "STORE_PATH=" + filepath.Join(b.dir, "plants.db")}, true, nil)
	if err != nil {
		return err
	}
	defer api.Stop()
	floor, err := serverproc.Start(bare, nil, false, nil)
	if err != nil {
		return err
	}
	defer floor.Stop()
	var ids atomic.Int64
	var apiRes, floorRes []loadResult
	for range 3 { // alternating rounds; the median round counts
		floorRes = append(floorRes, measuredLoad(floor, "", b.opts.conns, b.opts.loadFor, &ids))
		apiRes = append(apiRes, measuredLoad(api, api.Token, b.opts.conns, b.opts.loadFor, &ids))
	}
	a, f := medianRound(apiRes), medianRound(floorRes)
	var errs int64
	for _, r := range apiRes {
		errs += r.errors
	}
	b.row(fmt.Sprintf("local API req/s, %d conns, embedded store", b.opts.conns), fmt.Sprintf("%.0f/s", a.rps), fmt.Sprintf("bare net/http %.0f/s", f.rps), ratio(a.rps, f.rps), ">= 0.50x")
	b.row("local API p99", ms(a.p99), "bare net/http "+ms(f.p99), ratio(float64(a.p99), float64(f.p99)), "")
	b.row("local API errors (all rounds)", fmt.Sprintf("%d", errs), "", "", "0")
	// What the ratio is made of: on 2 cores the servers share the CPU with the load.
	aSrv, aGen, err1 := cpuPerRequest(apiRes)
	fSrv, fGen, err2 := cpuPerRequest(floorRes)
	if err := errors.Join(err1, err2); err != nil {
		b.row("CPU per request", "n/a", err.Error(), "", "")
	} else {
		b.row("local API server CPU per request (all rounds)", us(aSrv), "bare net/http "+us(fSrv), ratio(float64(aSrv), float64(fSrv)), "(what bounds req/s)")
		b.row("load generator CPU per request, against the local API", us(aGen), "against bare "+us(fGen), ratio(float64(aGen), float64(fGen)), "")
	}
	if errs > 0 {
		return errors.New("the local API answered errors under load")
	}
	return nil
}

func medianRound(rs []loadResult) loadResult {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b loadResult) int { return int(a.rps - b.rps) })
	return s[len(s)/2]
}

// chain times a create through make start-api's whole local chain (the
// gateway from template.yaml, the cached authorizer answer, the proxy event,
// createplant, dynalite) against the same createplant process invoked
// directly with the same event, alternating, one request at a time.
func (b *bench) chain() error {
	bins, err := b.hostBinaries()
	if err != nil {
		return err
	}
	srv, err := emulator.StartDynalite("")
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := emulator.CreateTable(context.Background(), srv.Client(), "plants"); err != nil {
		return err
	}
	tpl, err := samtemplate.Load("template.yaml")
	if err != nil {
		return err
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		return err
	}
	api.RateLimit = 0 // the stage throttle would cut a benchmark short
	functions := runtimeapi.NewFunctions(map[string]runtimeapi.Spec{
		"CreatePlantFunction": {Bootstrap: bins[createplant], Env: append(srv.Env(), "TABLE_NAME=plants"), Timeout: 6 * time.Second},
		"AuthorizerFunction": {Bootstrap: bins[authorizer], Timeout: 5 * time.Second, Env: []string{
			"AUTH_ISSUER=" + fixtures.Issuer, "AUTH_AUDIENCE=" + fixtures.Audience, "AUTH_HS256_SECRET=" + fixtures.Secret, "AUTH_REQUIRED_SCOPE=" + fixtures.Scope}},
	}, io.Discard)
	defer functions.Close()
	gw, err := gateway.New(api, functions, time.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	front := httptest.NewServer(gw)
	defer front.Close()
	tok, err := auth.NewHS256Token([]byte(fixtures.Secret), auth.TokenSpec{Issuer: fixtures.Issuer, Audience: fixtures.Audience,
		Subject: "bench", Scope: fixtures.Scope, IssuedAt: time.Now(), TTL: time.Hour})
	if err != nil {
		return err
	}
	var base events.APIGatewayProxyRequest
	if err := json.Unmarshal(mustRead("events/createplant-with-tag.json"), &base); err != nil {
		return err
	}
	client := front.Client()
	id := 2_000_000
	times := map[string][]time.Duration{}
	for i := range 30 + b.opts.warm {
		id++
		start := time.Now()
		answer, failed, err := functions.Invoke(context.Background(), "CreatePlantFunction", eventFor(base, id))
		direct := time.Since(start)
		if err != nil || failed {
			return fmt.Errorf("direct invocation: %v %s", err, answer)
		}
		id++
		req, _ := http.NewRequest(http.MethodPost, front.URL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, id)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		start = time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		through := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("through the chain: status %d", resp.StatusCode)
		}
		if i >= 30 {
			times["direct"] = append(times["direct"], direct)
			times["chain"] = append(times["chain"], through)
		}
	}
	d, c := median(times["direct"]), median(times["chain"])
	b.row(fmt.Sprintf("a create through make start-api's chain, p50 of %d", len(times["chain"])), ms(c), "createplant alone "+ms(d), ratio(float64(c), float64(d)), "(what the local chain adds)")
	return nil
}
