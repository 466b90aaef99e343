package httpapi

import (
	"net/http"

	"github.com/plantstore/plantstore/internal/plant"
)

// handleCreatePlant serves POST /plants: the checks of docs/design.md ("POST /plants") in
// their order (Content-Type, size, JSON, fields), then one store.Create.
func handleCreatePlant(store plant.Store) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := decodeNewPlant(w, r)
		if err != nil {
			writeError(w, r, err)
			return
		}
		created, err := store.Create(r.Context(), p)
		if err != nil {
			writeError(w, r, err)
			return
		}
		if info := infoFrom(r.Context()); info != nil {
			info.outcome = "replayed"
			if created {
				info.outcome = "created"
			}
		}
		writeJSON(w, http.StatusOK, encodePlant(p.Plant()))
	})
}
