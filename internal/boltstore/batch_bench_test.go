package boltstore

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/plantstore/plantstore/internal/plant"
)

// batchCreate is the alternative to the committer goroutine: bbolt's own
// DB.Batch, which gathers the calls that arrive within MaxBatchDelay into one
// transaction. It is kept here, beside the benchmark that compares the two,
// so that the choice can be measured again.
func batchCreate(db *bolt.DB, p plant.NewPlant) (bool, error) {
	value, err := json.Marshal(record{Name: p.Name, Tag: p.Tag, CreatedAt: time.Now().UTC().Format(time.RFC3339)})
	if err != nil {
		return false, err
	}
	var created bool
	err = db.Batch(func(tx *bolt.Tx) error { // may run twice: it sets created afresh
		created = false
		b := tx.Bucket(bucket)
		if old := b.Get(key(p.ID)); old != nil {
			stored, err := decode(old)
			if err != nil {
				return err
			}
			if !stored.Same(p.Plant()) {
				return plant.ErrExists
			}
			return nil
		}
		created = true
		return b.Put(key(p.ID), value)
	})
	return created, err
}

// BenchmarkCreateParallel compares the group commit with DB.Batch at several
// MaxBatchDelay values: 32 goroutines (16 per core on the 2-core machines we
// run on) creating distinct plants, each create on disk before it returns.
func BenchmarkCreateParallel(b *testing.B) {
	b.Run("groupcommit", func(b *testing.B) {
		s := openBench(b)
		runParallel(b, func(p plant.NewPlant) error { _, err := s.Create(context.Background(), p); return err })
	})
	for _, delay := range []time.Duration{0, 200 * time.Microsecond, time.Millisecond, 10 * time.Millisecond} {
		b.Run("dbbatch-delay="+delay.String(), func(b *testing.B) {
			s := openBench(b)
			s.db.MaxBatchDelay = delay
			runParallel(b, func(p plant.NewPlant) error { _, err := batchCreate(s.db, p); return err })
		})
	}
}

// BenchmarkCreateLone is one create at a time: what a lone request waits.
func BenchmarkCreateLone(b *testing.B) {
	b.Run("groupcommit", func(b *testing.B) {
		s := openBench(b)
		for i := 0; b.Loop(); i++ {
			if _, err := s.Create(context.Background(), plant.NewPlant{ID: int64(i), Name: "lone"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, delay := range []time.Duration{0, time.Millisecond} {
		b.Run("dbbatch-delay="+delay.String(), func(b *testing.B) {
			s := openBench(b)
			s.db.MaxBatchDelay = delay
			for i := 0; b.Loop(); i++ {
				if _, err := batchCreate(s.db, plant.NewPlant{ID: int64(i), Name: "lone"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func runParallel(b *testing.B, create func(plant.NewPlant) error) {
	var next atomic.Int64
	b.SetParallelism(16)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			id := next.Add(1)
			if err := create(plant.NewPlant{ID: id, Name: "plant " + strconv.FormatInt(id, 10)}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func openBench(b *testing.B) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "p.db"), time.Now)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
