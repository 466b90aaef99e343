package boltstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/internal/plant/planttest"
)

func open(t *testing.T) planttest.Store {
	t.Helper()
	s, err := boltstore.Open(filepath.Join(t.TempDir(), "sub", "plants.db"), time.Now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContract(t *testing.T) {
	planttest.Run(t, open)
	planttest.RunRace(t, open)
}

func TestReopenKeepsPlants(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plants.db")
	s, err := boltstore.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.Create(ctx, plant.NewPlant{ID: -7, Name: "Rose"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(ctx, plant.NewPlant{ID: 7, Name: "Lily"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = boltstore.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ids []int64
	if err := s.Each(func(id int64, p plant.Plant) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != -7 || ids[1] != 7 {
		t.Errorf("ids after reopen = %v, want [-7 7]", ids)
	}
}

func TestSecondOpenFailsWhileLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plants.db")
	s, err := boltstore.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s2, err := boltstore.Open(path, time.Now)
	if err == nil {
		s2.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
	if !strings.Contains(err.Error(), "another process holds the file") {
		t.Errorf("second Open: %v; want it to say that another process holds the file", err)
	}
}

// Concurrent creates share transactions; each still gets its own answer, and
// every acknowledged plant is on disk after Close.
func TestGroupCommit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "plants.db")
	s, err := boltstore.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	const n = 600
	type result struct {
		created bool
		err     error
	}
	results := make([]result, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			// ids 0..299 twice: once as "a", once as "a" again or as "b".
			id := int64(i % 300)
			name := "a"
			if i >= 300 && i%2 == 0 {
				name = "b"
			}
			results[i].created, results[i].err = s.Create(context.Background(), plant.NewPlant{ID: id, Name: name})
		})
	}
	wg.Wait()
	for id := range 300 {
		a, b := results[id], results[id+300]
		if a.created == b.created {
			t.Errorf("id %d: created %v and %v; want exactly one create", id, a.created, b.created)
			continue
		}
		loser := a
		if !b.created {
			loser = b
		}
		sameName := (id+300)%2 != 0 // the second create is "a" again
		if sameName && loser.err != nil {
			t.Errorf("id %d: the same plant again answered %v, want a replay", id, loser.err)
		}
		if !sameName && !errors.Is(loser.err, plant.ErrExists) {
			t.Errorf("id %d: another plant answered %v, want ErrExists", id, loser.err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Create(context.Background(), plant.NewPlant{ID: 1, Name: "x"}); !errors.Is(err, boltstore.ErrClosed) {
		t.Errorf("Create after Close: %v, want ErrClosed", err)
	}
	s, err = boltstore.Open(path, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	count := 0
	s.Each(func(int64, plant.Plant) error { count++; return nil })
	if count != 300 {
		t.Errorf("%d plants on disk, want 300", count)
	}
}
