// Command localapi serves Plant Store on 127.0.0.1 without Docker or AWS: the
// same handler and token verifier as the Lambda functions, over an embedded
// bbolt store (or DynamoDB when TABLE_NAME is set). It answers only this
// machine's programs and pages (devserver.LoopbackOnly; ALLOW_HOSTS names
// more Host names).
package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/boltstore"
	"github.com/plantstore/plantstore/internal/httpapi"
	"github.com/plantstore/plantstore/internal/logging"
	"github.com/plantstore/plantstore/internal/plant"
	"github.com/plantstore/plantstore/samlocal/devserver"
)

func main() {
	// Ctrl-C, a kill, and a closed terminal (SIGHUP, which the shell sends
	// to each of its jobs) all shut it down gracefully, its store closed.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := run(ctx, os.Args, os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "localapi:", err)
		os.Exit(1)
	}
}

// requestTimeout bounds the store work of each request; past it, 503. The
// server's own bounds are devserver.APITimeouts, which fit around it.
const requestTimeout = 10 * time.Second

const (
	tokenCacheTTL  = 300 * time.Second // the gateway's authorizer cache in template.yaml
	tokenCacheSize = 4096
)

// config is the local API's environment (docs/design.md, "Configuration"), read once.
type config struct {
	host       string // 127.0.0.1 unless HOST says otherwise
	port       int
	allowHosts devserver.Hosts // Host names answered beside loopback ones: ALLOW_HOSTS, and HOST when it names one address
	timeouts   devserver.Timeouts
	request    time.Duration // store work per request; past it, 503
	storePath  string
	tableName  string
	auth       auth.Config
	generated  bool   // the HS256 secret was made up for this run
	tokenScope string // the scope of the printed token: TOKEN_SCOPE, else AUTH_REQUIRED_SCOPE
	logLevel   slog.Level
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		host:      "127.0.0.1",
		timeouts:  devserver.APITimeouts(),
		request:   requestTimeout,
		storePath: ".plantstore/plants.db",
		tableName: getenv("TABLE_NAME"),
	}
	var err error
	if c.auth, err = auth.ConfigFromEnv(getenv); err != nil {
		return c, err
	}
	if c.port, err = devserver.Port(getenv, 3000); err != nil {
		return c, err
	}
	c.tokenScope = cmp.Or(getenv("TOKEN_SCOPE"), c.auth.RequiredScope)
	if v := getenv("HOST"); v != "" {
		if net.ParseIP(v) == nil && v != "localhost" {
			return c, fmt.Errorf("HOST=%q: want an IP address or localhost", v)
		}
		c.host = v
	}
	if v := getenv("ALLOW_HOSTS"); v != "" {
		if c.allowHosts, err = devserver.ParseHosts(v); err != nil {
			return c, fmt.Errorf("ALLOW_HOSTS=%q: %w", v, err)
		}
	}
	if ip := net.ParseIP(c.host); ip != nil && !ip.IsUnspecified() && !ip.IsLoopback() {
		// A Host that names the address listened on is no rebinding name.
		c.allowHosts = append(c.allowHosts, ip.String())
	}
	if v := getenv("STORE_PATH"); v != "" {
		c.storePath = v
	}
	if c.logLevel, err = logging.ParseLevel(getenv("LOG_LEVEL")); err != nil {
		return c, err
	}
	if c.auth.Issuer == "" {
		c.auth.Issuer = "plantstore-local"
	}
	if c.auth.Audience == "" {
		c.auth.Audience = "plantstore"
	}
	// A secret is made up only when no key source is given: with a JWKS URL
	// the local API verifies as the deployed authorizer does, JWKS alone.
	if c.auth.HS256Secret == nil && c.auth.JWKSURL == "" {
		c.auth.HS256Secret = make([]byte, 32)
		rand.Read(c.auth.HS256Secret)
		c.generated = true
	}
	return c, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) > 1 {
		return fmt.Errorf("no arguments expected (configuration is in the environment; see README.md), got %q", args[1:])
	}
	cfg, err := loadConfig(getenv)
	if err != nil {
		return err
	}
	return serve(ctx, cfg, stdout, stderr)
}

// serve runs the server that cfg describes until ctx ends.
func serve(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.logLevel}))

	authCfg := cfg.auth
	authCfg.Logger = logger
	verifier, err := auth.NewVerifier(ctx, authCfg)
	if err != nil {
		return err
	}
	store, where, closeStore, err := openStore(ctx, cfg)
	if err != nil {
		return err
	}
	defer closeStore()

	// Accepted tokens are remembered as API Gateway remembers its authorizer's answers.
	tokens := auth.NewCached(verifier, tokenCacheTTL, tokenCacheSize, time.Now)
	refuse := func(w http.ResponseWriter, r *http.Request, reason string) {
		logger.Warn("refused a request a web page may have sent", "reason", reason, "host", r.Host, "origin", r.Header.Get("Origin"))
		writeRefusal(w, reason)
	}
	if ip := net.ParseIP(cfg.host); cfg.host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		logger.Warn("listening beyond loopback: anyone who can reach this address can try tokens", "host", cfg.host,
			"answered", "requests naming a loopback host, the address listened on or a name of ALLOW_HOSTS")
	}
	api := httpapi.NewHandler(loggedStore{store, logger}, logger, httpapi.RequireToken(loggedVerifier{tokens, logger}))
	srv := devserver.Server{
		Name:     "Plant Store local API",
		Addr:     net.JoinHostPort(cfg.host, strconv.Itoa(cfg.port)),
		Handler:  devserver.LoopbackOnly(withRequest(cfg.request, api), cfg.allowHosts, refuse),
		Timeouts: cfg.timeouts,
		Logger:   logger,
	}
	return srv.Run(ctx, stdout, func(url string) error {
		fmt.Fprintf(stdout, "Plant Store local API listening on %s (store: %s)\n", url, where)
		if cfg.auth.HS256Secret == nil {
			return nil
		}
		note := ""
		if cfg.generated {
			note = "; the secret is new each run, set AUTH_HS256_SECRET to keep tokens across restarts"
		}
		spec := auth.TokenSpec{Issuer: cfg.auth.Issuer, Audience: cfg.auth.Audience, Subject: "local-developer", Scope: cfg.tokenScope}
		return printToken(stdout, cfg.auth.HS256Secret, spec, url, note, time.Now())
	})
}

// openStore opens the embedded store, or DynamoDB when TABLE_NAME is set.
func openStore(ctx context.Context, cfg config) (plant.Store, string, func() error, error) {
	if cfg.tableName != "" {
		return openDynamo(ctx, cfg.tableName)
	}
	s, err := boltstore.Open(cfg.storePath, time.Now)
	if err != nil {
		return nil, "", nil, err
	}
	return s, cfg.storePath, s.Close, nil
}

// writeRefusal answers a request that the local API does not serve (one a
// web page may have sent; devserver.LoopbackOnly says which): 403 in the
// Error shape, with 40000, design.md's code for a 4xx the gateway produces
// itself, since on AWS no such request would pass the gateway's host name.
func writeRefusal(w http.ResponseWriter, reason string) {
	body, _ := json.Marshal(map[string]any{"error": 40000, "message": "the local API answers only programs and pages of this machine: " + reason})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(body)
}
