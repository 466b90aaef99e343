package boltstore_test

import (
	"context"
	"path/filepath"
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
	if s2, err := boltstore.Open(path, time.Now); err == nil {
		s2.Close()
		t.Fatal("second Open of a locked file succeeded")
	}
}
