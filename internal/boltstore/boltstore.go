// Package boltstore is the plant.Store for local runs: one bbolt file, no
// server. Each create is one serialized, fsynced read-write transaction, so
// concurrent creates of one id have exactly one winner.
package boltstore

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/plantstore/plantstore/internal/plant"
)

var bucket = []byte("plants")

// Store keeps plants in a bbolt file.
type Store struct {
	db  *bolt.DB
	now func() time.Time
}

var _ plant.Store = (*Store)(nil)

// Open opens or creates the store file at path (and its directory). It fails
// after a second when another process holds the file.
func Open(path string, now func() time.Time) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create store directory: %w", err)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucket)
		return err
	}); err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare store %s: %w", path, err)
	}
	return &Store{db: db, now: now}, nil
}

// Close releases the file.
func (s *Store) Close() error { return s.db.Close() }

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
	binary.BigEndian.PutUint64(k[:], uint64(id)^(1<<63))
	return k[:]
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
	created := false
	err = s.db.Update(func(tx *bolt.Tx) error {
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
	if err != nil {
		return false, fmt.Errorf("create plant %d: %w", p.ID, err)
	}
	return created, nil
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
			return fn(int64(binary.BigEndian.Uint64(k)^(1<<63)), p)
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
