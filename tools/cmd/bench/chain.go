package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/gateway"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
	"github.com/plantstore/plantstore/samlocal/trace"
)

// chain times a create through make start-api's whole local chain (the
// gateway from template.yaml, the cached authorizer answer, the proxy event,
// createplant, dynalite) against the same createplant process invoked
// directly with the same event, alternating, one request at a time.
func (b *bench) chain() error {
	bins, err := b.hostBinaries()
	if err != nil {
		return err
	}
	srv, err := dynamoemu.StartDynalite("")
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := dynamoemu.CreateTable(context.Background(), srv.Client(), fixtures.PlantsTable("plants")); err != nil {
		return err
	}
	tpl, err := samtemplate.Load("template.yaml")
	if err != nil {
		return err
	}
	api, err := tpl.RestAPI("PlantsApi")
	if err != nil {
		return err
	}
	api.RateLimit = 0 // the stage throttle would cut a benchmark short
	functions := lambdaemu.NewFunctions(map[string]lambdaemu.Spec{
		"CreatePlantFunction": {Bootstrap: bins[createplant], Env: append(srv.Env(), "TABLE_NAME=plants"), Timeout: 6 * time.Second},
		"AuthorizerFunction": {Bootstrap: bins[authorizer], Timeout: 5 * time.Second, Env: []string{
			"AUTH_ISSUER=" + fixtures.Issuer, "AUTH_AUDIENCE=" + fixtures.Audience, "AUTH_HS256_SECRET=" + fixtures.Secret, "AUTH_REQUIRED_SCOPE=" + fixtures.Scope}},
	}, io.Discard)
	functions.Observer = trace.Invocations{} // as make start-api's
	defer functions.Close()
	gw, err := gateway.New(api, functions, time.Now, slog.New(slog.DiscardHandler))
	if err != nil {
		return err
	}
	// The gateway on a loopback port, over real HTTP.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	front := &http.Server{Handler: gw, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = front.Serve(ln) }()
	defer front.Close()
	frontURL := "http://" + ln.Addr().String()
	tok, err := auth.NewHS256Token([]byte(fixtures.Secret), auth.TokenSpec{Issuer: fixtures.Issuer, Audience: fixtures.Audience,
		Subject: "bench", Scope: fixtures.Scope, IssuedAt: time.Now(), TTL: time.Hour})
	if err != nil {
		return err
	}
	var base events.APIGatewayProxyRequest
	if err := json.Unmarshal(mustRead("events/createplant-with-tag.json"), &base); err != nil {
		return err
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	id := 2_000_000
	times := map[string][]time.Duration{}
	for i := range 30 + b.opts.warm {
		id++
		start := time.Now()
		answer, failed, err := functions.Invoke(context.Background(), "CreatePlantFunction", eventFor(base, id))
		direct := time.Since(start)
		if err != nil || failed {
			return fmt.Errorf("direct invocation: %v %s", err, answer)
		}
		id++
		req, _ := http.NewRequest(http.MethodPost, frontURL+"/plants", strings.NewReader(fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, id)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		start = time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		through := time.Since(start)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("through the chain: status %d", resp.StatusCode)
		}
		if i >= 30 {
			times["direct"] = append(times["direct"], direct)
			times["chain"] = append(times["chain"], through)
		}
	}
	d, c := median(times["direct"]), median(times["chain"])
	b.row(fmt.Sprintf("a create through make start-api's chain, p50 of %d", len(times["chain"])), ms(c), "createplant alone "+ms(d), ratio(float64(c), float64(d)), "(what the local chain adds)")
	return nil
}
