// Package lambdainit holds what both functions do before lambda.Start: the
// logger, and reporting an init failure to the Lambda Runtime API so that the
// platform shows the reason (Runtime.InitError) instead of a bare exit.
package lambdainit

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/plantstore/plantstore/internal/logging"
)

// Logger returns the JSON logger of a function at level ("" is info).
func Logger(w io.Writer, level string) (*slog.Logger, error) {
	l, err := logging.ParseLevel(level)
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l})), err
}

// Fail logs err in one line and posts it to the Runtime API at runtimeAPI
// (the AWS_LAMBDA_RUNTIME_API host:port) as an init error. The caller exits.
func Fail(logger *slog.Logger, runtimeAPI string, err error) {
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
