// Package loadgen is the one load generator and the one percentile of the
// tooling: make bench's local rounds and make load both drive a server with
// Run and summarise latencies with Percentile.
package loadgen

import (
	"net/http"
	"slices"
	"sync"
	"time"
)

// Result is what one Run measured.
type Result struct {
	Latencies []time.Duration // of every request that got an answer
	Failed    int             // requests that got no answer
	Elapsed   time.Duration
}

// RPS is the answered requests per second.
func (r Result) RPS() float64 { return float64(len(r.Latencies)) / r.Elapsed.Seconds() }

// Percentile is the p-th percentile of the latencies (see Percentile).
func (r Result) Percentile(p int) time.Duration { return Percentile(r.Latencies, p) }

// Run starts conns workers that call do with client(w), w the worker's
// number, until d has passed, and times each call. do reports whether its
// request got an answer (any status); what the answer means is do's to
// judge and record.
func Run(conns int, d time.Duration, client func(w int) *http.Client, do func(c *http.Client) (answered bool)) Result {
	lat := make([][]time.Duration, conns)
	failed := make([]int, conns)
	start := time.Now()
	stop := start.Add(d)
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			c := client(w)
			for time.Now().Before(stop) {
				t := time.Now()
				if do(c) {
					lat[w] = append(lat[w], time.Since(t))
				} else {
					failed[w]++
				}
			}
		})
	}
	wg.Wait()
	r := Result{Elapsed: time.Since(start)}
	for w := range conns {
		r.Latencies = append(r.Latencies, lat[w]...)
		r.Failed += failed[w]
	}
	return r
}

// Percentile is the p-th percentile of ds by the nearest-rank method: the
// smallest value that at least p percent of ds do not exceed. 0 for none.
func Percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := (len(s)*p + 99) / 100 // ceil(p/100 * n)
	return s[max(0, min(len(s)-1, rank-1))]
}
