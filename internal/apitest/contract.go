// Package apitest checks HTTP answers against the contract in
// api/openapi.yaml. Tests of every layer that answers clients (the handler,
// the local server, the Lambda function) use it, so that the contract is
// held by real responses; its own tests hold the error codes and the
// configuration table to the documents.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/plantstore/plantstore/internal/srctree"
)

var loadDoc = sync.OnceValues(func() (*openapi3.T, error) {
	root, err := srctree.Root()
	if err != nil {
		return nil, err
	}
	doc, err := openapi3.NewLoader().LoadFromFile(filepath.Join(root, "api", "openapi.yaml"))
	if err != nil {
		return nil, err
	}
	return doc, doc.Validate(context.Background())
})

// Doc returns the parsed, validated contract.
func Doc(t testing.TB) *openapi3.T {
	t.Helper()
	doc, err := loadDoc()
	if err != nil {
		t.Fatalf("api/openapi.yaml: %v", err)
	}
	return doc
}

// Error is the Error body.
type Error struct {
	Error   int32  `json:"error"`
	Message string `json:"message"`
}

// Check fails t unless the answer (status, header, body) to method path is one
// that the contract allows: a documented status with its schema for POST
// /plants, the Error schema for anything else. It returns the decoded Error
// for failures (zero for 2xx).
func Check(t testing.TB, method, path string, status int, header http.Header, body []byte) Error {
	t.Helper()
	doc := Doc(t)
	if ct := header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type = %q, want application/json", method, path, ct)
	}
	item := doc.Paths.Find(path)
	if method == http.MethodPost && item != nil && item.Post != nil {
		req, _ := http.NewRequest(method, "http://127.0.0.1:3000"+path, nil)
		input := &openapi3filter.ResponseValidationInput{
			RequestValidationInput: &openapi3filter.RequestValidationInput{
				Request: req,
				Route:   &routers.Route{Spec: doc, Path: path, PathItem: item, Method: method, Operation: item.Post},
			},
			Status:  status,
			Header:  header,
			Body:    io.NopCloser(bytes.NewReader(body)),
			Options: &openapi3filter.Options{IncludeResponseStatus: true},
		}
		if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
			t.Errorf("%s %s answered %d %s, which the contract does not allow: %v", method, path, status, body, err)
		}
	} else {
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			t.Errorf("%s %s: body %q is not JSON: %v", method, path, body, err)
		} else if err := doc.Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
			t.Errorf("%s %s answered %d %s, not an Error: %v", method, path, status, body, err)
		}
	}
	var e Error
	if status >= 300 {
		if err := json.Unmarshal(body, &e); err != nil || e.Error == 0 || e.Message == "" {
			t.Errorf("%s %s answered %d with %q, want an Error body", method, path, status, body)
		}
	}
	return e
}
