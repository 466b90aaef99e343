package dynamoemu_test

import (
	"testing"

	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/dynamoemu/dynamoemutest"
)

// No other user of the machine reaches a local table: the loopback front
// answers only requests signed with the run's own credentials, as DynamoDB
// checks each caller's SigV4 signature, with DynamoDB's errors for the rest.
func TestFrontsAnswerOnlyTheRunsSignature(t *testing.T) {
	t.Parallel()
	for _, start := range []func(testing.TB) *dynamoemu.Server{dynamoemutest.Dynalite, dynamoemutest.Moto} {
		s := start(t)
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			dynamoemutest.AnswersOnlySigned(t, s.URL, s.Credentials)
		})
	}
}
