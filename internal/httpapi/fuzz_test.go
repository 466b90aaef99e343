package httpapi_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/apitest"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/plant"
)

// memStore keeps plants in a map: no I/O, for fuzzing and benchmarks.
type memStore struct {
	mu     sync.Mutex
	plants map[int64]plant.Plant
}

func (m *memStore) Create(_ context.Context, p plant.NewPlant) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if old, ok := m.plants[p.ID]; ok {
		if !old.Same(p.Plant()) {
			return false, plant.ErrExists
		}
		return false, nil
	}
	m.plants[p.ID] = p.Plant()
	return true, nil
}

// FuzzCreatePlantBody: for any body, the answer is 200 or 400 in the
// contract's shapes, never a 5xx or a panic; a 200 stores exactly what a
// standard JSON decoder reads from the same body.
func FuzzCreatePlantBody(f *testing.F) {
	for _, seed := range []string{
		`{"id":1,"name":"Monstera","tag":"indoor"}`,
		`{"id":-9223372036854775808,"name":"x","tag":null,"extra":[1,{"a":2}]}`,
		`{"id":1e3,"name":"x"}`,
		`{"id":1,"name":"x","id":2}`,
		`{"name":"\u0000"}`,
		`[]`,
		`{"id":1,"name":"é\u2003","tag":""}`,
		`{"id":1,"name":"\ud834\udd59\u303f","tag":"\u2800"}`,
		"{\"id\":1,\"name\":\"\xff\"}",
		`{"a":[[[[[[[[{"b":{}}]]]]]]]]}`,
	} {
		f.Add(seed)
	}
	store := &memStore{plants: map[int64]plant.Plant{}}
	h := httpapi.NewHandler(store, slog.New(slog.DiscardHandler), httpapi.RequireToken(verifier(f, "")))
	auth := "Bearer " + token(f, "", 24*time.Hour)
	f.Fuzz(func(t *testing.T, body string) {
		r := httptest.NewRequest(http.MethodPost, "/plants", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Authorization", auth)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		resp := w.Result()
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusBadRequest {
			t.Fatalf("body %q: status %d %s", body, resp.StatusCode, got)
		}
		apitest.Check(t, http.MethodPost, "/plants", resp.StatusCode, resp.Header, got)
		if resp.StatusCode != http.StatusOK {
			return
		}
		// Field names are case-sensitive: decode through a map, not a struct
		// (encoding/json matches struct fields in any case).
		var members map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &members); err != nil {
			t.Fatalf("accepted %q, which encoding/json rejects: %v", body, err)
		}
		var sent struct {
			ID   json.Number
			Name string
			Tag  *string
		}
		for raw, dst := range map[string]any{"id": &sent.ID, "name": &sent.Name, "tag": &sent.Tag} {
			if v, ok := members[raw]; ok {
				if err := json.Unmarshal(v, dst); err != nil {
					t.Fatalf("accepted %s %s: %v", raw, v, err)
				}
			}
		}
		id, err := sent.ID.Int64()
		if err != nil {
			t.Fatalf("accepted id %q: %v", sent.ID, err)
		}
		store.mu.Lock()
		stored := store.plants[id]
		store.mu.Unlock()
		if stored.Name != sent.Name || (sent.Tag == nil) != (stored.Tag == nil) || (sent.Tag != nil && *sent.Tag != *stored.Tag) {
			t.Fatalf("body %q stored %+v", body, stored)
		}
	})
}
