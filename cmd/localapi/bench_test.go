package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/devserver"
)

// BenchmarkLocalAPI is make run's server in this process under the load of
// make bench's local round (32 connections posting unique plants, each
// fsynced), so that `go test -bench LocalAPI -cpuprofile -memprofile` shows
// where its time and allocations go (docs/performance.md has the table).
func BenchmarkLocalAPI(b *testing.B) {
	cfg, err := loadConfig(env(map[string]string{
		"PORT": "0", "STORE_PATH": filepath.Join(b.TempDir(), "plants.db"),
		"AUTH_HS256_SECRET": "a-benchmark-secret-of-at-least-32-bytes",
	}))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var stdout syncBuffer
	done := make(chan error, 1)
	go func() { done <- serve(ctx, cfg, &stdout, io.Discard) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	var banner devserver.Banner
	for deadline := time.Now().Add(10 * time.Second); !banner.Complete(true); {
		if time.Now().After(deadline) {
			b.Fatalf("no banner: %s", stdout.String())
		}
		time.Sleep(5 * time.Millisecond)
		banner = devserver.Banner{}
		for _, line := range strings.Split(stdout.String(), "\n") {
			banner.Line(line)
		}
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	var next atomic.Int64
	b.SetParallelism(16) // 32 connections on two cores
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := next.Add(1)
			req, _ := http.NewRequest(http.MethodPost, banner.URL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, id)))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+banner.Token)
			resp, err := client.Do(req)
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("status %d", resp.StatusCode)
				return
			}
		}
	})
}
