package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/samlocal/dynamoemu"
	"github.com/plantstore/plantstore/samlocal/lambdaemu"
	"github.com/plantstore/plantstore/tools/loadgen"
)

// eventFor is the with-tag fixture carrying plant id.
func eventFor(base events.APIGatewayProxyRequest, id int) []byte {
	base.Body = fmt.Sprintf(`{"id":%d,"name":"Ficus lyrata","tag":"indoor"}`, id)
	raw, _ := json.Marshal(base)
	return raw
}

type lambdaProc struct {
	rt *lambdaemu.Server
	fn *lambdaemu.Function
}

func startLambda(bin string, env []string) (*lambdaProc, time.Time, error) {
	rt, err := lambdaemu.Start()
	if err != nil {
		return nil, time.Time{}, err
	}
	start := time.Now()
	fn, err := rt.Run(bin, env, io.Discard)
	if err != nil {
		rt.Close()
		return nil, start, err
	}
	return &lambdaProc{rt: rt, fn: fn}, start, nil
}

func (l *lambdaProc) stop() { l.fn.Stop(); l.rt.Close() }

func (l *lambdaProc) invoke(payload []byte) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	res, err := l.rt.Invoke(ctx, payload, 6*time.Second)
	if err != nil {
		return 0, err
	}
	if res.Error != nil {
		return 0, fmt.Errorf("function error %s", res.Error)
	}
	var resp events.APIGatewayProxyResponse
	if err := json.Unmarshal(res.Payload, &resp); err != nil || resp.StatusCode != 200 {
		return 0, fmt.Errorf("answer %s", res.Payload)
	}
	return time.Since(start), nil
}

// invocations measures the first and the warm invocations of createplant
// beside rawput, both writing to moto.
func (b *bench) invocations() error {
	bins, err := b.hostBinaries()
	if err != nil {
		return err
	}
	srv, err := dynamoemu.StartMoto()
	if err != nil {
		return err
	}
	defer srv.Stop()
	if err := dynamoemu.CreateTable(context.Background(), srv.Client(), fixtures.PlantsTable("plants")); err != nil {
		return err
	}
	var base events.APIGatewayProxyRequest
	if err := json.Unmarshal(mustRead("events/createplant-with-tag.json"), &base); err != nil {
		return err
	}
	env := append(srv.Env(), "TABLE_NAME=plants")
	id := 1_000_000

	// First invocation: process start to the answer of the first create.
	first := map[string][]time.Duration{}
	for range max(5, b.opts.starts/2) {
		for _, pkg := range []string{rawput, createplant} {
			l, start, err := startLambda(bins[pkg], env)
			if err != nil {
				return err
			}
			id++
			_, err = l.invoke(eventFor(base, id))
			first[pkg] = append(first[pkg], time.Since(start))
			l.stop()
			if err != nil {
				return fmt.Errorf("%s first invocation: %w", pkg, err)
			}
		}
	}
	b.row(fmt.Sprintf("first invocation, createplant (median of %d)", len(first[createplant])), ms(median(first[createplant])), "raw PutItem "+ms(median(first[rawput])), ratio(float64(median(first[createplant])), float64(median(first[rawput]))), "")

	// Warm: both processes up, invocations alternating between them.
	procs := map[string]*lambdaProc{}
	for _, pkg := range []string{rawput, createplant} {
		l, _, err := startLambda(bins[pkg], env)
		if err != nil {
			return err
		}
		defer l.stop()
		procs[pkg] = l
	}
	warm := map[string][]time.Duration{}
	for i := range 30 + b.opts.warm {
		for _, pkg := range []string{rawput, createplant} {
			id++
			d, err := procs[pkg].invoke(eventFor(base, id))
			if err != nil {
				return fmt.Errorf("%s warm invocation: %w", pkg, err)
			}
			if i >= 30 { // the first 30 warm the connections and the runtime
				warm[pkg] = append(warm[pkg], d)
			}
		}
	}
	c, r := warm[createplant], warm[rawput]
	b.row(fmt.Sprintf("warm invocation p50, createplant (%d)", len(c)), ms(median(c)), "raw PutItem "+ms(median(r)), ratio(float64(median(c)), float64(median(r))), "<= 1.10x")
	b.row(fmt.Sprintf("warm invocation p99, createplant (%d)", len(c)), ms(loadgen.Percentile(c, 99)), "raw PutItem "+ms(loadgen.Percentile(r, 99)), ratio(float64(loadgen.Percentile(c, 99)), float64(loadgen.Percentile(r, 99))), "")
	return nil
}

func mustRead(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return b
}
