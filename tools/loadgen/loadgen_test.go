package loadgen

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	ms := func(v ...int) []time.Duration {
		var ds []time.Duration
		for _, x := range v {
			ds = append(ds, time.Duration(x)*time.Millisecond)
		}
		return ds
	}
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = 100 - i // 100 down to 1: the order of the input does not matter
	}
	tests := []struct {
		ds   []time.Duration
		p    int
		want time.Duration
	}{
		{nil, 50, 0},
		{ms(7), 99, 7 * time.Millisecond},
		{ms(hundred...), 50, 50 * time.Millisecond},
		{ms(hundred...), 99, 99 * time.Millisecond},
		{ms(hundred...), 100, 100 * time.Millisecond},
		{ms(hundred...), 1, 1 * time.Millisecond},
		{ms(1, 2, 3, 4), 50, 2 * time.Millisecond},
		{ms(1, 2, 3, 4), 51, 3 * time.Millisecond},
	}
	for _, tt := range tests {
		if got := Percentile(tt.ds, tt.p); got != tt.want {
			t.Errorf("Percentile(%d values, %d) = %v, want %v", len(tt.ds), tt.p, got, tt.want)
		}
	}
}

func TestRun(t *testing.T) {
	t.Parallel()
	var served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
	}))
	defer srv.Close()
	var calls, workers atomic.Int64
	r := Run(4, 100*time.Millisecond, func(int) *http.Client { workers.Add(1); return srv.Client() }, func(c *http.Client) bool {
		n := calls.Add(1)
		if n%5 == 0 {
			return false // every fifth call "got no answer"
		}
		resp, err := c.Get(srv.URL)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	if workers.Load() != 4 {
		t.Errorf("%d workers, want 4", workers.Load())
	}
	if int64(len(r.Latencies)+r.Failed) != calls.Load() || int64(len(r.Latencies)) != served.Load() {
		t.Errorf("%d latencies + %d failed, %d calls, %d served", len(r.Latencies), r.Failed, calls.Load(), served.Load())
	}
	if r.Elapsed < 100*time.Millisecond || r.RPS() <= 0 {
		t.Errorf("elapsed %v, %.0f/s", r.Elapsed, r.RPS())
	}
}
