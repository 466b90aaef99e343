package watch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// BenchmarkBurst is a burst of saves of distinct Go files (a checkout, a
// generator) read into changes, at two sizes: each file is looked up in
// what the change already holds, and ns/file at 10,000 files against
// 1,000 shows whether that lookup grows with the burst (a new watcher's
// start weighs on the smaller one).
func BenchmarkBurst(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := b.TempDir()
			write(b, filepath.Join(root, "internal", "gen", "keep.go"), "package gen\n")
			names := make([]string, n)
			for i := range names {
				names[i] = filepath.Join(root, "internal", "gen", fmt.Sprintf("f%05d.go", i))
			}
			for b.Loop() {
				w, err := New(root, Files{Template: "template.yaml"}, time.Millisecond)
				if err != nil {
					b.Fatal(err)
				}
				events := make(chan fsnotify.Event)
				w.events = events
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() { done <- w.Run(ctx) }()
				go func() {
					for _, name := range names {
						events <- fsnotify.Event{Name: name, Op: fsnotify.Write}
					}
				}()
				for got := 0; got < n; {
					got += len((<-w.Changes()).Go)
				}
				cancel()
				if err := <-done; err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/file")
		})
	}
}
