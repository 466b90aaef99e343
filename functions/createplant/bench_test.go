package main

import (
	"context"
	"log/slog"
	"strconv"
	"testing"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/internal/lambdatest"
	"github.com/plantstore/plantstore/internal/plant"
)

// nopStore accepts every plant without I/O.
type nopStore struct{}

func (nopStore) Create(context.Context, plant.NewPlant) (bool, error) { return true, nil }

// BenchmarkLambdaPath measures a REST proxy event in and the response out:
// the adapter, the handler and the log line, with a store that does no I/O.
func BenchmarkLambdaPath(b *testing.B) {
	fn := newFunctionWithStore(nopStore{}, slog.New(slog.DiscardHandler))
	ev, _ := lambdatest.Event[events.APIGatewayProxyRequest](b, "createplant-with-tag")
	ctx := context.Background()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		ev.Body = `{"id":` + strconv.Itoa(i) + `,"name":"Ficus lyrata","tag":"indoor"}`
		resp, err := fn.handle(ctx, ev)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("%d %s %v", resp.StatusCode, resp.Body, err)
		}
	}
}
