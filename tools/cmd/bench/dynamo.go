package main

import (
	"context"
	"fmt"
	"time"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
)

// dynamoCost creates plants on moto through the store and reads the
// capacity each create consumed (dynamoemu.Counting).
func (b *bench) dynamoCost() error {
	srv, err := dynamoemu.StartMoto()
	if err != nil {
		return err
	}
	defer srv.Stop()
	ctx := context.Background()
	if err := dynamoemu.CreateTable(ctx, srv.Client(), fixtures.PlantsTable("plants")); err != nil {
		return err
	}
	api := &dynamoemu.Counting{ItemAPI: srv.Client()}
	store := dynamo.New(api, "plants", time.Now)
	const n = 50
	tag := "indoor"
	for i := range n {
		if _, err := store.Create(ctx, plant.NewPlant{ID: int64(i), Name: "Ficus lyrata", Tag: &tag}); err != nil {
			return err
		}
	}
	puts, gets, wru, rru := api.Counts()
	b.row(fmt.Sprintf("DynamoDB per create (%d on moto)", n),
		fmt.Sprintf("%.2f WRU", wru/n), "1 PutItem = 1 WRU, 0 reads",
		fmt.Sprintf("%d/%d", puts, gets), fmt.Sprintf("puts/gets %d/0, %.2f RRU", n, rru))
	return nil
}
