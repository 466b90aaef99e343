package dynamo_test

import (
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/dynamo"
	"github.com/plantstore/plantstore/internal/plant/planttest"
	"github.com/plantstore/plantstore/tools/emulator"
)

func TestMain(m *testing.M) { emulator.Main(m) }

func opener(srv func(testing.TB) *emulator.Server) planttest.Opener {
	return func(t *testing.T) planttest.Store {
		s := srv(t)
		return dynamo.New(s.Client(), emulator.NewTable(t, s), time.Now)
	}
}

// moto returns the old item on a failed condition; its conditional writes are
// not atomic under concurrency, so the race runs on dynalite only.
func TestContractMoto(t *testing.T) {
	t.Parallel()
	planttest.Run(t, opener(emulator.Moto))
}

// dynalite serializes writes per item and returns no old item, so it runs the
// race and the GetItem fallback.
func TestContractDynalite(t *testing.T) {
	t.Parallel()
	planttest.Run(t, opener(emulator.Dynalite))
	planttest.RunRace(t, opener(emulator.Dynalite))
}
