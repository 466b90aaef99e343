package httpapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
)

// memoryStore is the smallest plant.Store: a map under a lock. The product's
// stores are internal/dynamo and internal/boltstore.
type memoryStore struct {
	mu     sync.Mutex
	plants map[int64]plant.NewPlant
}

func (s *memoryStore) Create(_ context.Context, p plant.NewPlant) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.plants[p.ID]; ok {
		if old.Plant().Same(p.Plant()) {
			return false, nil
		}
		return false, plant.ErrExists
	}
	s.plants[p.ID] = p
	return true, nil
}

// The handler of POST /plants with a store and the local API's token check:
// a create, its replay, and a conflict.
func ExampleNewHandler() {
	secret := []byte("an example secret of at least 32 bytes!")
	verifier, _ := auth.NewVerifier(context.Background(), auth.Config{Issuer: "local", Audience: "plantstore", HS256Secret: secret})
	token, _ := auth.NewHS256Token(secret, auth.TokenSpec{Issuer: "local", Audience: "plantstore", Subject: "example", IssuedAt: time.Now(), TTL: time.Hour})

	h := httpapi.NewHandler(&memoryStore{plants: map[int64]plant.NewPlant{}}, slog.New(slog.DiscardHandler), httpapi.RequireToken(verifier))
	for _, body := range []string{`{"id":1,"name":"Monstera"}`, `{"id":1,"name":"Monstera"}`, `{"id":1,"name":"Fern"}`} {
		r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		r.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		fmt.Println(w.Code, strings.TrimSpace(w.Body.String()))
	}
	// Output:
	// 200 {"name":"Monstera"}
	// 200 {"name":"Monstera"}
	// 400 {"error":40009,"message":"a plant with this id already exists with a different name or tag"}
}
