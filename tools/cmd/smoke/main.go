// Command smoke is a black-box check of a running Plant Store, local or
// deployed: it creates a plant, replays it, provokes a conflict, a validation
// error and two 401s, and prints what it saw. It exits 1 if any answer is not
// the one docs/design.md pins. The token comes from $TOKEN.
//
//	make smoke URL=https://abc.execute-api.eu-west-1.amazonaws.com/v1 TOKEN=eyJ...
//
// With -start PKG it first builds and starts that server package (as `make
// smoke-local` does with ./cmd/localapi) on a free port and a fresh store,
// checks it with the URL and token it prints, and stops it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/plantstore/plantstore/internal/serverproc"
	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/plantstore/plantstore/samlocal/proc"
)

func main() {
	proc.ExitOnSignal("smoke")
	defer childproc.StopAll()
	if err := run(context.Background(), os.Args, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "smoke:", err)
		childproc.StopAll()
		os.Exit(1)
	}
}

type check struct {
	name          string
	authorization string
	body          string
	status        int
	code          int    // Error code, or 0 for a Plant
	plant         string // the Plant body wanted for a 200
}

func run(ctx context.Context, args []string, getenv func(string) string, out io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	base := fs.String("url", "", "base URL, e.g. http://127.0.0.1:3000 or the stack's ApiUrl")
	start := fs.String("start", "", "a server package to build and start first, e.g. ./cmd/localapi")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	token := getenv("TOKEN")
	if *start != "" {
		dir, err := childproc.TempDir("plantstore-smoke-")
		if err != nil {
			return err
		}
		srv, err := startServer(*start, dir)
		if err != nil {
			return err
		}
		defer srv.Stop()
		*base, token = srv.URL, srv.Token
	}
	if *base == "" || token == "" {
		return errors.New("usage: TOKEN=... smoke -url URL")
	}
	id := rand.Int64N(1<<62) + 1 // fresh on a store that outlives the run
	bearer := "Bearer " + token
	plant := fmt.Sprintf(`{"name":"smoke %d","tag":"smoke"}`, id)
	checks := []check{
		{"create", bearer, fmt.Sprintf(`{"id":%d,"name":"smoke %d","tag":"smoke"}`, id, id), 200, 0, plant},
		{"replay", bearer, fmt.Sprintf(`{"id":%d,"name":"smoke %d","tag":"smoke"}`, id, id), 200, 0, plant},
		{"conflict", bearer, fmt.Sprintf(`{"id":%d,"name":"other"}`, id), 400, 40009, ""},
		{"validation", bearer, fmt.Sprintf(`{"id":%d,"name":""}`, id+1), 400, 40006, ""},
		// The largest body a NewPlant may have: WAF's common rule set blocks
		// bodies over 8 KB unless its SizeRestrictions_BODY rule is overridden.
		{"64 KiB", bearer, padded(fmt.Sprintf(`{"id":%d,"name":"big %d"}`, id+2, id+2), maxBody), 200, 0, fmt.Sprintf(`{"name":"big %d"}`, id+2)},
		{"64 KiB+1", bearer, padded(fmt.Sprintf(`{"id":%d,"name":"big"}`, id+3), maxBody+1), 400, 40003, ""},
		{"no token", "", fmt.Sprintf(`{"id":%d,"name":"x"}`, id+1), 401, 40100, ""},
		{"bad token", bearer + "x", fmt.Sprintf(`{"id":%d,"name":"x"}`, id+1), 401, 40100, ""},
	}
	client := &http.Client{Timeout: 15 * time.Second}
	failed := 0
	for _, c := range checks {
		got, err := send(ctx, client, strings.TrimRight(*base, "/")+"/plants", c)
		verdict := "ok  "
		if err != nil {
			verdict, failed = "FAIL", failed+1
			got += " (" + err.Error() + ")"
		}
		fmt.Fprintf(out, "%s %-10s %s\n", verdict, c.name, got)
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d checks failed", failed, len(checks))
	}
	fmt.Fprintf(out, "all %d checks passed against %s\n", len(checks), *base)
	return nil
}

// maxBody is the largest body a create may have (64 KiB).
const maxBody = 64 << 10

// padded makes a JSON object body exactly n bytes long by putting white
// space, which JSON allows, before its closing brace.
func padded(object string, n int) string {
	return object[:len(object)-1] + strings.Repeat(" ", n-len(object)) + "}"
}

// startServer builds pkg into dir and starts it on a free port with its
// store in dir.
func startServer(pkg, dir string) (*serverproc.Server, error) {
	bin, err := serverproc.Build(dir, pkg)
	if err != nil {
		return nil, err
	}
	return serverproc.StartServer(bin, []string{"PORT=0", "STORE_PATH=" + filepath.Join(dir, "plants.db")}, true, os.Stderr)
}

// send makes one request and says what came back, with an error when it is
// not what c wants.
func send(ctx context.Context, client *http.Client, url string, c check) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(c.body))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.authorization != "" {
		req.Header.Set("Authorization", c.authorization)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "no answer", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	seen := fmt.Sprintf("%d %s", resp.StatusCode, bytes.TrimSpace(body))
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		return seen, fmt.Errorf("Content-Type %q", ct)
	}
	if resp.StatusCode != c.status {
		return seen, fmt.Errorf("want status %d", c.status)
	}
	if c.code == 0 {
		var got, want any
		if json.Unmarshal(body, &got) != nil || json.Unmarshal([]byte(c.plant), &want) != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			return seen, fmt.Errorf("want %s", c.plant)
		}
		return seen, nil
	}
	var e struct {
		Error   int    `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Error != c.code || e.Message == "" {
		return seen, fmt.Errorf("want error %d", c.code)
	}
	return seen, nil
}
