// Package plant is the domain of Plant Store: what a plant is, which new plants
// are valid, and the Store that keeps them. It knows nothing of HTTP or AWS.
package plant

import (
	"context"
	"errors"
)

// Plant is a stored plant as clients see it. The id is not part of it:
// a client names the id it creates and gets back the plant, never the id
// (docs/design.md, "POST /plants" and api/openapi.yaml's Plant schema).
type Plant struct {
	Name string
	Tag  *string // nil when the plant has no tag
}

// NewPlant is a request to create a plant.
type NewPlant struct {
	ID   int64
	Name string
	Tag  *string // nil when absent
}

// Plant returns the plant that p creates.
func (p NewPlant) Plant() Plant { return Plant{Name: p.Name, Tag: p.Tag} }

// Same reports whether p and q have the same name and tag: a create of an
// existing id with the same plant is a replay, with another one a conflict.
func (p Plant) Same(q Plant) bool {
	if p.Name != q.Name || (p.Tag == nil) != (q.Tag == nil) {
		return false
	}
	return p.Tag == nil || *p.Tag == *q.Tag
}

// Store keeps plants.
type Store interface {
	// Create stores p unless a plant with p.ID exists. created is false when
	// the same plant (see Plant.Same) already existed: a replay, nothing is
	// written. A different plant under p.ID is ErrExists.
	Create(ctx context.Context, p NewPlant) (created bool, err error)
}

var (
	// ErrExists means a different plant is already stored under the id.
	ErrExists = errors.New("a different plant exists with this id")
	// ErrNotFound means no plant is stored under the id.
	ErrNotFound = errors.New("plant not found")
	// ErrUnavailable means the store was throttled or could not be reached,
	// after retries. The request may succeed later.
	ErrUnavailable = errors.New("store unavailable")
)
