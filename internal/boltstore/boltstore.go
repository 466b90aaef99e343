// Package boltstore is the plant.Store for local runs: one bbolt file, no
// server. Creates go through one committer goroutine that writes everything
// waiting in one read-write transaction (group commit): a lone create commits
// at once, concurrent ones share one fsync, and since the transactions are
// serialized, concurrent creates of one id have exactly one winner. A create
// returns only after its transaction is on disk. bbolt's own DB.Batch was
// measured against this and lost (BenchmarkCreateParallel; docs/performance.md).
package boltstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/plantstore/plantstore/internal/plant"
)

var bucket = []byte("plants")

// Store keeps plants in a bbolt file.
type Store struct {
	db  *bolt.DB
	now func() time.Time

	mu     sync.RWMutex // held for reading while queueing, for writing to close
	closed bool
	queue  chan *createRequest
	done   chan struct{} // closed when the committer has stopped
}

// createRequest is one create waiting for the committer.
type createRequest struct {
	id      int64
	plant   plant.Plant
	value   []byte
	created bool
	err     error
	done    chan struct{}
}

// maxBatch bounds the creates in one transaction.
const maxBatch = 256

// ErrClosed is returned by Create after Close.
var ErrClosed = errors.New("store closed")

var _ plant.Store = (*Store)(nil)

// Open opens or creates the store file at path (and its directory). It fails
// after a second when another process holds the file.
func Open(path string, now func() time.Time) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create store directory: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoFreelistSync: true, FreelistType: bolt.FreelistMapType, InitialMmapSize: 256 << 20})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open store %s: another process holds the file (is another make run using it? stop it, or set STORE_PATH): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		return nil, errors.Join(fmt.Errorf("prepare store %s: %w", path, err), db.Close())
	}
	s := &Store{db: db, now: now, queue: make(chan *createRequest, maxBatch), done: make(chan struct{})}
	go s.commit()
	return s, nil
}

// Close waits for the creates under way, then releases the file.
func (s *Store) Close() error {
	s.mu.Lock()
	if !s.closed {
		s.closed = true
		close(s.queue)
	}
	s.mu.Unlock()
	<-s.done
	return s.db.Close()
}

// record is the stored value; the id is the key.
type record struct {
	Name      string  `json:"name"`
	Tag       *string `json:"tag,omitempty"`
	CreatedAt string  `json:"createdAt"`
}

// key orders ids numerically: the sign bit is flipped so that negative ids
// sort before positive ones.
func key(id int64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(id)^(1<<63)) // #nosec G115 -- a bit-for-bit reinterpretation, undone by idOf
	return k[:]
}

func idOf(k []byte) int64 {
	return int64(binary.BigEndian.Uint64(k) ^ (1 << 63)) // #nosec G115 -- the inverse of key
}

// Create implements plant.Store.
func (s *Store) Create(ctx context.Context, p plant.NewPlant) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("create plant %d: %w", p.ID, err)
	}
	value, err := json.Marshal(record{Name: p.Name, Tag: p.Tag, CreatedAt: s.now().UTC().Format(time.RFC3339)})
	if err != nil {
		return false, fmt.Errorf("encode plant %d: %w", p.ID, err)
	}
	req := &createRequest{id: p.ID, plant: p.Plant(), value: value, done: make(chan struct{})}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return false, fmt.Errorf("create plant %d: %w", p.ID, ErrClosed)
	}
	s.queue <- req
	s.mu.RUnlock()
	<-req.done // once queued, the answer waits for the disk, whatever ctx says
	if req.err != nil {
		return false, fmt.Errorf("create plant %d: %w", p.ID, req.err)
	}
	return req.created, nil
}

// commit writes what is waiting in one transaction at a time until Close.
func (s *Store) commit() {
	defer close(s.done)
	batch := make([]*createRequest, 0, maxBatch)
	previous := 0 // creates in the previous transaction
	for first := range s.queue {
		if previous > 1 {
			// Creates are arriving together: let the handlers that are ready
			// to queue theirs run first, so that they share this fsync
			// (BenchmarkCreateParallel). One yield, no timer, and none after
			// a lone create (BenchmarkCreateLone).
			runtime.Gosched()
		}
		batch = append(batch[:0], first)
	fill:
		for len(batch) < maxBatch {
			select {
			case r, ok := <-s.queue:
				if !ok {
					break fill
				}
				batch = append(batch, r)
			default:
				break fill
			}
		}
		err := s.db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			for _, r := range batch { // in order: a later create of the same id sees the earlier one
				r.created, r.err = false, nil
				if old := b.Get(key(r.id)); old != nil {
					stored, err := decode(old)
					switch {
					case err != nil:
						r.err = err
					case !stored.Same(r.plant):
						r.err = plant.ErrExists
					}
					continue
				}
				if err := b.Put(key(r.id), r.value); err != nil {
					return err
				}
				r.created = true
			}
			return nil
		})
		previous = len(batch)
		for _, r := range batch {
			if err != nil {
				r.created, r.err = false, err
			}
			close(r.done)
		}
	}
}

// Get returns the plant stored under id, or plant.ErrNotFound.
func (s *Store) Get(ctx context.Context, id int64) (plant.Plant, error) {
	var p plant.Plant
	err := s.db.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucket).Get(key(id))
		if v == nil {
			return plant.ErrNotFound
		}
		var err error
		p, err = decode(v)
		return err
	})
	if err != nil {
		return plant.Plant{}, fmt.Errorf("get plant %d: %w", id, err)
	}
	return p, nil
}

// Each calls fn with every stored plant in id order; it stops at fn's first error.
func (s *Store) Each(fn func(id int64, p plant.Plant) error) error {
	return s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucket).ForEach(func(k, v []byte) error {
			p, err := decode(v)
			if err != nil {
				return err
			}
			return fn(idOf(k), p)
		})
	})
}

func decode(v []byte) (plant.Plant, error) {
	var r record
	if err := json.Unmarshal(v, &r); err != nil {
		return plant.Plant{}, errors.Join(errors.New("corrupt record"), err)
	}
	return plant.Plant{Name: r.Name, Tag: r.Tag}, nil
}

// Check verifies the file's structure (bbolt's consistency check: pages,
// freelist, B+tree order) and returns the first problem found.
func (s *Store) Check() error {
	return s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return fmt.Errorf("store file: %w", err)
		}
		return nil
	})
}
