package dynamo_test

import (
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/dynamotest"
	"github.com/plantstore/plantstore/internal/plant/planttest"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

func TestMain(m *testing.M) { dynamoemutest.Main(m) }

func opener(srv func(testing.TB) *dynamoemu.Server) planttest.Opener {
	return func(t *testing.T) planttest.Store {
		s := srv(t)
		return dynamo.New(s.Client(), dynamotest.NewTable(t, s), time.Now)
	}
}

// moto returns the old item on a failed condition. Its conditional writes
// are not atomic under concurrency, but its front (dynamoemu) passes on one
// request at a time, so the race runs on it too.
func TestContractMoto(t *testing.T) {
	t.Parallel()
	planttest.Run(t, opener(dynamoemutest.Moto))
	planttest.RunRace(t, opener(dynamoemutest.Moto))
}

// dynalite serializes writes per item and returns no old item, so it runs the
// race and the GetItem fallback.
func TestContractDynalite(t *testing.T) {
	t.Parallel()
	planttest.Run(t, opener(dynamoemutest.Dynalite))
	planttest.RunRace(t, opener(dynamoemutest.Dynalite))
}
