// Command load drives the local API, as `make run` starts it, with many
// concurrent creates (new ids, contested ids, invalid bodies), then stops it
// and checks the store: every 200 was stored exactly as sent, no id holds a
// plant that was not acknowledged, no invalid body left anything behind.
// With -crash it kills the server with SIGKILL halfway, restarts it on the
// same store, and checks that every create acknowledged before the crash is
// still there and the file is sound. `make load` runs it at length; `make
// test` runs a short version.
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/internal/serverproc"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/proc"
	"github.com/plantstore/plantstore/tools/loadgen"
)

func main() {
	proc.ExitOnSignal("load")
	defer childproc.StopAll() // children still running on an orderly exit (see package childproc)
	if err := run(context.Background(), os.Args, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "load:", err)
		childproc.StopAll()
		os.Exit(1)
	}
}

type options struct {
	mode  string // embedded or dynamodb
	dur   time.Duration
	conns int
	crash bool
	bin   string
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	var o options
	fs.StringVar(&o.mode, "mode", "embedded", "store: embedded (bbolt) or dynamodb (a dynalite it starts)")
	fs.DurationVar(&o.dur, "duration", 10*time.Second, "how long to drive the server")
	fs.IntVar(&o.conns, "conns", 32, "concurrent connections")
	fs.BoolVar(&o.crash, "crash", false, "SIGKILL the server halfway and restart it on the same store")
	fs.StringVar(&o.bin, "bin", "", "the local API's executable to drive (default: build ./cmd/localapi)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if o.mode != "embedded" && o.mode != "dynamodb" {
		return fmt.Errorf("-mode %q: want embedded or dynamodb", o.mode)
	}
	dir, err := childproc.TempDir("plantstore-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	bin := o.bin
	if bin == "" {
		if bin, err = serverproc.Build(dir, "./cmd/localapi"); err != nil {
			return err
		}
	}
	var secret [32]byte
	rand.Read(secret[:])
	env := []string{"PORT=0", "AUTH_HS256_SECRET=" + hex.EncodeToString(secret[:]), "LOG_LEVEL=warn"}
	var check func(acks map[int64][]plant.Plant) (map[int64]plant.Plant, error)
	switch o.mode {
	case "embedded":
		path := filepath.Join(dir, "plants.db")
		env = append(env, "STORE_PATH="+path)
		check = func(map[int64][]plant.Plant) (map[int64]plant.Plant, error) { return readBolt(path) }
	case "dynamodb":
		srv, err := dynamoemu.StartDynalite("")
		if err != nil {
			return err
		}
		defer srv.Stop()
		if err := dynamoemu.CreateTable(ctx, srv.Client(), fixtures.PlantsTable("plants")); err != nil {
			return err
		}
		env = append(append(env, "TABLE_NAME=plants"), srv.Env()...)
		check = func(acks map[int64][]plant.Plant) (map[int64]plant.Plant, error) {
			return readDynamo(ctx, srv.Client(), acks)
		}
	}
	token, err := auth.NewHS256Token([]byte(hex.EncodeToString(secret[:])), auth.TokenSpec{
		Issuer: "plantstore-local", Audience: "plantstore", Subject: "load", IssuedAt: time.Now(), TTL: time.Hour,
	})
	if err != nil {
		return err
	}

	server, err := serverproc.StartServer(bin, env, false, os.Stderr)
	if err != nil {
		return err
	}
	d := &driver{token: token, conns: o.conns, crashMode: o.crash, acks: map[int64][]plant.Plant{}}
	d.url.Store(&server.URL)
	d.base = randomBase()

	results := make(chan loadgen.Result, 1)
	go func() {
		client := func(int) *http.Client {
			return &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
		}
		results <- loadgen.Run(o.conns, o.dur, client, d.one)
	}()
	crashes := 0
	if o.crash {
		time.Sleep(o.dur / 2)
		d.crashing.Store(true)
		server.Kill()
		crashes++
		if server, err = serverproc.StartServer(bin, env, false, os.Stderr); err != nil {
			return fmt.Errorf("restart after the crash: %w", err)
		}
		d.url.Store(&server.URL)
		d.crashing.Store(false)
	}
	res := <-results
	if err := server.Stop(); err != nil {
		return err
	}

	stored, err := check(d.acks)
	if err != nil {
		return err
	}
	return d.report(out, o, res, crashes, stored)
}

// driver sends the load and remembers every acknowledgement.
type driver struct {
	url       atomic.Pointer[string]
	token     string
	conns     int
	base      int64
	next      atomic.Int64
	crashing  atomic.Bool
	crashMode bool

	mu         sync.Mutex
	acks       map[int64][]plant.Plant // every plant answered 200, by id
	byOutcome  map[string]int
	unexpected []string
	lostToKill int // requests that failed while the server was being killed
}

// hot ids are contested by many writers with two different plants.
const hotIDs = 40

var invalidBodies = []string{
	`{"id":%d}`, `{"id":%d,"name":""}`, `{"id":%d,"name":"x","tag":""}`, `{"id":"%d","name":"x"}`,
	`{"id":%d,"name":"x","id":1}`, `{"id":%d.5,"name":"x"}`, `{"id":%d,"name":"\u0000"}`, `[%d]`,
}

func randomBase() int64 {
	n, _ := rand.Int(rand.Reader, big.NewInt(1<<40))
	return n.Int64() + 1<<20
}

// one sends the next request of the mix: new plants, contested ids and
// invalid bodies. It reports whether the request got an answer.
func (d *driver) one(client *http.Client) bool {
	var body, kind string
	var sent plant.Plant
	var id int64
	switch r := d.next.Add(1); {
	case r%10 < 6: // a new plant
		id = d.base + r
		tag := "t" + strconv.FormatInt(r%7, 10)
		sent = plant.Plant{Name: "plant " + strconv.FormatInt(id, 10), Tag: &tag}
		body = fmt.Sprintf(`{"id":%d,"name":%q,"tag":%q}`, id, sent.Name, tag)
		kind = "new"
	case r%10 < 8: // a contested id, one of two plants
		id = d.base - 1 - r%hotIDs
		sent = plant.Plant{Name: []string{"hot A", "hot B"}[(r/hotIDs)%2]}
		body = fmt.Sprintf(`{"id":%d,"name":%q}`, id, sent.Name)
		kind = "contested"
	default: // invalid: ids below every valid one, never to be stored
		id = -d.base - r
		body = fmt.Sprintf(invalidBodies[int(r/10)%len(invalidBodies)], id)
		kind = "invalid"
	}
	return d.send(client, kind, id, sent, body)
}

func (d *driver) send(client *http.Client, kind string, id int64, sent plant.Plant, body string) (answered bool) {
	req, _ := http.NewRequest(http.MethodPost, *d.url.Load()+"/plants", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+d.token)
	resp, err := client.Do(req)
	var answer []byte
	if err == nil {
		answer, _ = io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byOutcome == nil {
		d.byOutcome = map[string]int{}
	}
	if err != nil {
		if d.crashMode && (d.crashing.Load() || errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection re")) {
			d.lostToKill++ // the crash cut it; it may or may not be stored
			return false
		}
		d.unexpected = append(d.unexpected, fmt.Sprintf("%s id %d: %v", kind, id, err))
		return false
	}
	var e struct {
		Error int `json:"error"`
	}
	json.Unmarshal(answer, &e)
	outcome := fmt.Sprintf("%s %d", kind, resp.StatusCode)
	if e.Error != 0 {
		outcome += fmt.Sprintf(" (%d)", e.Error)
	}
	d.byOutcome[outcome]++
	switch {
	case resp.StatusCode == 200 && kind != "invalid":
		var got struct {
			Name string  `json:"name"`
			Tag  *string `json:"tag"`
		}
		if json.Unmarshal(answer, &got) != nil || !sent.Same(plant.Plant{Name: got.Name, Tag: got.Tag}) {
			d.unexpected = append(d.unexpected, fmt.Sprintf("id %d: answered %s for %s", id, answer, body))
		}
		d.acks[id] = append(d.acks[id], sent)
	case kind == "contested" && e.Error == 40009:
	case kind == "invalid" && resp.StatusCode == 400 && e.Error != 40009:
	default:
		d.unexpected = append(d.unexpected, fmt.Sprintf("%s id %d: %d %s", kind, id, resp.StatusCode, answer))
	}
	return true
}

func (d *driver) report(out io.Writer, o options, res loadgen.Result, crashes int, stored map[int64]plant.Plant) error {
	var problems []string
	acked := 0
	for id, plants := range d.acks {
		acked += len(plants)
		for _, p := range plants[1:] {
			if !p.Same(plants[0]) {
				problems = append(problems, fmt.Sprintf("id %d: two different plants acknowledged", id))
			}
		}
		got, ok := stored[id]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("id %d: acknowledged but not stored (LOST)", id))
		case !got.Same(plants[0]):
			problems = append(problems, fmt.Sprintf("id %d: stored %+v, acknowledged %+v", id, got, plants[0]))
		}
	}
	unacked := 0
	for id := range stored {
		if id < 0 && id < -d.base {
			problems = append(problems, fmt.Sprintf("id %d: an invalid body was stored", id))
		}
		if _, ok := d.acks[id]; !ok {
			unacked++
		}
	}
	if unacked > d.lostToKill {
		problems = append(problems, fmt.Sprintf("%d plants stored without a 200, more than the %d requests cut by the crash", unacked, d.lostToKill))
	}
	problems = append(problems, d.unexpected...)

	fmt.Fprintf(out, "load: %s store, %d connections, %v, %d crash(es)\n", o.mode, o.conns, res.Elapsed.Round(time.Millisecond), crashes)
	fmt.Fprintf(out, "  requests answered: %d (%.0f/s), p50 %v, p99 %v\n", len(res.Latencies), res.RPS(), res.Percentile(50).Round(time.Microsecond), res.Percentile(99).Round(time.Microsecond))
	keys := make([]string, 0, len(d.byOutcome))
	for k := range d.byOutcome {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(out, "  %-28s %d\n", k, d.byOutcome[k])
	}
	fmt.Fprintf(out, "  cut by the crash: %d; stored without a 200: %d\n", d.lostToKill, unacked)
	fmt.Fprintf(out, "  verified: %d acknowledged creates over %d ids, all stored as sent; %d plants in the store\n", acked, len(d.acks), len(stored))
	if len(problems) > 0 {
		for _, p := range problems[:min(len(problems), 20)] {
			fmt.Fprintln(out, "  PROBLEM:", p)
		}
		return fmt.Errorf("%d problems", len(problems))
	}
	fmt.Fprintln(out, "  no problems: nothing lost, nothing extra, no errors")
	return nil
}

func readBolt(path string) (map[int64]plant.Plant, error) {
	s, err := boltstore.Open(path, time.Now)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if err := s.Check(); err != nil {
		return nil, err
	}
	stored := map[int64]plant.Plant{}
	return stored, s.Each(func(id int64, p plant.Plant) error { stored[id] = p; return nil })
}

func readDynamo(ctx context.Context, client *dynamodb.Client, acks map[int64][]plant.Plant) (map[int64]plant.Plant, error) {
	stored := map[int64]plant.Plant{}
	p := dynamodb.NewScanPaginator(client, &dynamodb.ScanInput{TableName: ptr("plants"), ConsistentRead: ptr(true)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, item := range page.Items {
			id, pl, err := dynamo.DecodeItem(item)
			if err != nil {
				return nil, err
			}
			stored[id] = pl
		}
	}
	return stored, nil
}

func ptr[T any](v T) *T { return &v }
