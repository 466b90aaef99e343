// Package planttest holds the contract that every plant.Store must pass. Each
// store's tests call Run (and RunRace where the backend is atomic) with a
// function that opens a fresh, empty store.
package planttest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/plantstore/plantstore/internal/plant"
)

// Store is a plant.Store that can also read a plant back, so that the
// contract can see what was written.
type Store interface {
	plant.Store
	Get(ctx context.Context, id int64) (plant.Plant, error)
}

// Opener returns a fresh, empty store for one test.
type Opener func(t *testing.T) Store

func tag(s string) *string { return &s }

// Run checks create, replay and conflict semantics.
func Run(t *testing.T, open Opener) {
	t.Run("CreateThenGet", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), context.Background()
		for _, p := range []plant.NewPlant{
			{ID: 1, Name: "Monstera", Tag: tag("indoor")},
			{ID: 2, Name: "Fern"},
			{ID: 0, Name: "zero"},
			{ID: -1, Name: "minus one"},
			{ID: math.MaxInt64, Name: "max"},
			{ID: math.MinInt64, Name: "min"},
			{ID: 3, Name: "  Ficus lyrata 🌿 «ü»  ", Tag: tag("日本")},
		} {
			created, err := s.Create(ctx, p)
			if err != nil || !created {
				t.Fatalf("Create(%d) = %v, %v; want true, nil", p.ID, created, err)
			}
			got, err := s.Get(ctx, p.ID)
			if err != nil {
				t.Fatalf("Get(%d): %v", p.ID, err)
			}
			if !got.Same(p.Plant()) {
				t.Errorf("Get(%d) = %s, want %s", p.ID, show(got), show(p.Plant()))
			}
		}
	})

	t.Run("GetMissing", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		if _, err := s.Get(context.Background(), 42); !errors.Is(err, plant.ErrNotFound) {
			t.Errorf("Get(42) error = %v, want ErrNotFound", err)
		}
	})

	t.Run("Replay", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), context.Background()
		for _, p := range []plant.NewPlant{
			{ID: 10, Name: "Aloe", Tag: tag("succulent")},
			{ID: 11, Name: "Basil"},
		} {
			if created, err := s.Create(ctx, p); err != nil || !created {
				t.Fatalf("first Create(%d) = %v, %v; want true, nil", p.ID, created, err)
			}
			created, err := s.Create(ctx, p)
			if err != nil || created {
				t.Errorf("replayed Create(%d) = %v, %v; want false, nil", p.ID, created, err)
			}
		}
	})

	t.Run("Conflict", func(t *testing.T) {
		t.Parallel()
		s, ctx := open(t), context.Background()
		first := plant.NewPlant{ID: 20, Name: "Cactus", Tag: tag("desert")}
		if _, err := s.Create(ctx, first); err != nil {
			t.Fatal(err)
		}
		for name, p := range map[string]plant.NewPlant{
			"other name":  {ID: 20, Name: "Cactus2", Tag: tag("desert")},
			"other tag":   {ID: 20, Name: "Cactus", Tag: tag("dry")},
			"tag dropped": {ID: 20, Name: "Cactus"},
		} {
			created, err := s.Create(ctx, p)
			if !errors.Is(err, plant.ErrExists) || created {
				t.Errorf("%s: Create = %v, %v; want false, ErrExists", name, created, err)
			}
		}
		untagged := plant.NewPlant{ID: 21, Name: "Ivy"}
		if _, err := s.Create(ctx, untagged); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Create(ctx, plant.NewPlant{ID: 21, Name: "Ivy", Tag: tag("x")}); !errors.Is(err, plant.ErrExists) {
			t.Errorf("tag added: error = %v, want ErrExists", err)
		}
		for _, p := range []plant.NewPlant{first, untagged} {
			got, err := s.Get(ctx, p.ID)
			if err != nil || !got.Same(p.Plant()) {
				t.Errorf("after conflicts Get(%d) = %s, %v; want %s unchanged", p.ID, show(got), err, show(p.Plant()))
			}
		}
	})

	t.Run("CanceledContext", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := s.Create(ctx, plant.NewPlant{ID: 30, Name: "Moss"}); err == nil {
			t.Fatal("Create with a canceled context succeeded")
		}
		if _, err := s.Get(context.Background(), 30); !errors.Is(err, plant.ErrNotFound) {
			t.Errorf("Get after canceled Create: error = %v, want ErrNotFound", err)
		}
	})
}

// writers is how many goroutines race on one id in RunRace.
const writers = 64

// RunRace checks that concurrent creates of one id have exactly one winner:
// with the same plant, one create and writers-1 replays; with different
// plants, one create, writers-1 conflicts, and the winner stored.
func RunRace(t *testing.T, open Opener) {
	t.Run("SamePlant", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		results := race(s, func(int) plant.NewPlant { return plant.NewPlant{ID: 100, Name: "Orchid"} })
		var created int
		for i, r := range results {
			if r.err != nil {
				t.Errorf("writer %d: %v", i, r.err)
			}
			if r.created {
				created++
			}
		}
		if created != 1 {
			t.Errorf("%d writers created the plant, want exactly 1", created)
		}
	})

	t.Run("DifferentPlants", func(t *testing.T) {
		t.Parallel()
		s := open(t)
		results := race(s, func(i int) plant.NewPlant {
			return plant.NewPlant{ID: 200, Name: fmt.Sprintf("writer %d", i)}
		})
		winner, conflicts := -1, 0
		for i, r := range results {
			switch {
			case r.err == nil && r.created:
				if winner >= 0 {
					t.Errorf("writers %d and %d both created id 200", winner, i)
				}
				winner = i
			case errors.Is(r.err, plant.ErrExists):
				conflicts++
			default:
				t.Errorf("writer %d: created=%v err=%v, want a create or ErrExists", i, r.created, r.err)
			}
		}
		if winner < 0 || conflicts != writers-1 {
			t.Fatalf("winner %d with %d conflicts, want one winner and %d conflicts", winner, conflicts, writers-1)
		}
		got, err := s.Get(context.Background(), 200)
		if want := fmt.Sprintf("writer %d", winner); err != nil || got.Name != want {
			t.Errorf("stored %s, %v; want the winner's name %q", show(got), err, want)
		}
	})
}

type result struct {
	created bool
	err     error
}

func race(s plant.Store, plantOf func(int) plant.NewPlant) []result {
	results := make([]result, writers)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			<-start
			results[i].created, results[i].err = s.Create(context.Background(), plantOf(i))
		})
	}
	close(start)
	wg.Wait()
	return results
}

func show(p plant.Plant) string {
	if p.Tag == nil {
		return fmt.Sprintf("{%q}", p.Name)
	}
	return fmt.Sprintf("{%q %q}", p.Name, *p.Tag)
}
