package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/plantstore/plantstore/internal/serverproc"
	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/plantstore/plantstore/tools/loadgen"
)

// loadResult is one load round on a server: what loadgen measured, the
// answers that were not 200, and the CPU time that the server and the load
// generator (this process) spent on it.
type loadResult struct {
	loadgen.Result
	errors int64

	serverCPU, loadCPU time.Duration
	cpuErr             error // the first reason they could not be read (/proc is Linux's)
}

// measuredLoad is one round of load on srv with its CPU accounting.
func measuredLoad(srv *serverproc.Server, token string, conns int, d time.Duration, ids *atomic.Int64) loadResult {
	s0, err1 := srv.CPUTime()
	g0, err2 := childproc.CPUTime(0)
	r := load(srv.URL, token, conns, d, ids)
	s1, err3 := srv.CPUTime()
	g1, err4 := childproc.CPUTime(0)
	r.serverCPU, r.loadCPU, r.cpuErr = s1-s0, g1-g0, cmp.Or(err1, err2, err3, err4)
	return r
}

// cpuPerRequest is the CPU time per request over all rounds.
func cpuPerRequest(rs []loadResult) (server, loadgen time.Duration, err error) {
	n := 0
	for _, r := range rs {
		server, loadgen, n = server+r.serverCPU, loadgen+r.loadCPU, n+len(r.Latencies)
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

// load drives url with conns connections posting unique plants for d.
func load(url, token string, conns int, d time.Duration, ids *atomic.Int64) loadResult {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	defer client.CloseIdleConnections()
	var errs atomic.Int64
	res := loadgen.Run(conns, d, func(int) *http.Client { return client }, func(c *http.Client) bool {
		body := fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, ids.Add(1))
		req, _ := http.NewRequest(http.MethodPost, url+"/plants", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err != nil {
			errs.Add(1)
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			errs.Add(1)
		}
		return true
	})
	return loadResult{Result: res, errors: errs.Load()}
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
	api, err := serverproc.StartServer(localapi, []string{"PORT=0", "STORE_PATH=" + filepath.Join(b.dir, "plants.db")}, true, nil)
	if err != nil {
		return err
	}
	defer api.Stop()
	floor, err := serverproc.StartServer(bare, nil, false, nil)
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
	b.row(fmt.Sprintf("local API req/s, %d conns, embedded store", b.opts.conns), fmt.Sprintf("%.0f/s", a.RPS()), fmt.Sprintf("bare net/http %.0f/s", f.RPS()), ratio(a.RPS(), f.RPS()), ">= 0.50x")
	b.row("local API p99", ms(a.Percentile(99)), "bare net/http "+ms(f.Percentile(99)), ratio(float64(a.Percentile(99)), float64(f.Percentile(99))), "")
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

// medianRound is the round with the median requests per second.
func medianRound(rs []loadResult) loadResult {
	s := slices.Clone(rs)
	slices.SortFunc(s, func(a, b loadResult) int { return cmp.Compare(a.RPS(), b.RPS()) })
	return s[len(s)/2]
}
