// Package lambdainit holds what the three functions do before lambda.Start:
// the logger, building the handler once per cold start, and reporting an
// init failure to the Lambda Runtime API so that the platform shows the
// reason (Runtime.InitError) instead of a bare exit.
package lambdainit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/aws/aws-lambda-go/lambda"

	"github.com/plantstore/plantstore/internal/logging"
)

// Function is what a Lambda main tells Main; T is what New builds (the
// function's state, made once per cold start).
type Function[T any] struct {
	// Logs, when set, wraps the JSON log handler (createplant adds its EMF
	// metrics). It wraps it even when LOG_LEVEL is wrong, so that the
	// "init failed" line goes the same way as every other.
	Logs func(slog.Handler) slog.Handler
	// New builds T from the environment; its error is the init error.
	New func(ctx context.Context, getenv func(string) string, logger *slog.Logger) (T, error)
	// Handler is the handler for lambda.Start, of a T that New built
	// without an error (never of the zero T that goes with an error).
	Handler func(T) any
}

// Main runs a function: the JSON logger at LOG_LEVEL on stdout, made the
// default (the log package's lines become JSON lines too), then New, then
// lambda.Start with its Handler. A wrong LOG_LEVEL or an error from New is
// logged and posted to the Runtime API, and the process exits 1.
func Main[T any](f Function[T]) {
	os.Exit(run(f, os.Getenv, os.Stdout, lambda.Start))
}

// run is Main with the environment, stdout and lambda.Start given, and the
// exit code returned. start does not return in production (lambda.Start
// exits the process); when it does, run returns 0.
func run[T any](f Function[T], getenv func(string) string, stdout io.Writer, start func(handler any)) int {
	logger, err := newLogger(stdout, getenv("LOG_LEVEL"))
	if f.Logs != nil {
		logger = slog.New(f.Logs(logger.Handler()))
	}
	slog.SetDefault(logger)
	if err == nil {
		var fn T
		if fn, err = f.New(context.Background(), getenv, logger); err == nil {
			start(f.Handler(fn))
			return 0
		}
	}
	fail(logger, getenv("AWS_LAMBDA_RUNTIME_API"), err)
	return 1
}

// newLogger returns the JSON logger of a function at level ("" is info).
func newLogger(w io.Writer, level string) (*slog.Logger, error) {
	l, err := logging.ParseLevel(level)
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), err
}

// fail logs err in one line and posts it to the Runtime API at runtimeAPI
// (the AWS_LAMBDA_RUNTIME_API host:port) as an init error. The caller exits.
func fail(logger *slog.Logger, runtimeAPI string, err error) {
	logger.Error("init failed", "error", err.Error())
	if runtimeAPI == "" {
		return
	}
	body, _ := json.Marshal(map[string]string{"errorMessage": err.Error(), "errorType": "InitError"})
	req, rerr := http.NewRequest(http.MethodPost, "http://"+runtimeAPI+"/2018-06-01/runtime/init/error", bytes.NewReader(body))
	if rerr != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Lambda-Runtime-Function-Error-Type", "Runtime.InitError")
	resp, rerr := (&http.Client{Timeout: 2 * time.Second}).Do(req)
	if rerr == nil {
		_ = resp.Body.Close() // the process exits next; nothing to do with a close error
	}
}
