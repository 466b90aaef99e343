package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/plantstore/plantstore/internal/plant"
)

// plantBody is the Plant of api/openapi.yaml on the wire.
type plantBody struct {
	Name string  `json:"name"`
	Tag  *string `json:"tag,omitempty"`
}

func encodePlant(p plant.Plant) plantBody { return plantBody(p) }

// errorBody is the Error of api/openapi.yaml on the wire.
type errorBody struct {
	Error   int32  `json:"error"`
	Message string `json:"message"`
}

// writeJSON writes v with the headers every answer carries.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil { // only our own types are written; they always encode
		status = http.StatusInternalServerError
		body = []byte(`{"error":50000,"message":"internal error"}`)
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(body) // a client that has gone away cannot be told
}
