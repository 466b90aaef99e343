package localtest

import (
	"log/slog"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/gateway"
	"github.com/plantstore/plantstore/samlocal/gateway/gatewaytest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// These tests hold Plant Store's template.yaml and its functions' rules
// against samlocal's gateway: the parts of the gateway's own tests
// (samlocal/gateway) that need what only this repository has, with their
// fakes (gatewaytest).

var templatePath = srctree.Path("template.yaml")

// newGateway serves template.yaml's PlantsApi with the fake functions.
func newGateway(t *testing.T, authorizer, createplant func([]byte) ([]byte, bool, error)) (*gateway.Gateway, *gatewaytest.Lambdas, *gatewaytest.Clock) {
	t.Helper()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		t.Fatal(err)
	}
	f := gatewaytest.NewLambdas(map[string]func([]byte) ([]byte, bool, error){"AuthorizerFunction": authorizer, "CreatePlantFunction": createplant})
	c := gatewaytest.NewClock()
	g, err := gateway.New(api, f, c.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	return g, f, c
}
