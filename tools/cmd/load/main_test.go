package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/serverproc"
	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/proctest"
)

// The short forms of `make load`: each run fails unless every acknowledged
// create is stored as sent and nothing else is. A second is thousands of
// requests on 16 connections, and the load takes every core it is given:
// make load is the long form. They share one build, in
// the test's kept folder (proctest.BuildDir).
func TestLoad(t *testing.T) {
	bin, err := serverproc.Build(proctest.BuildDir(t), "./cmd/localapi")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"embedded", []string{"-mode", "embedded", "-duration", "1s", "-conns", "16"}},
		{"embedded with a crash", []string{"-mode", "embedded", "-duration", "2s", "-conns", "16", "-crash"}},
		{"dynamodb", []string{"-mode", "dynamodb", "-duration", "1s", "-conns", "16"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.args[1] == "dynamodb" {
				if _, err := os.Stat(srctree.Path("node_modules", ".bin", "dynalite")); err != nil && os.Getenv("CI") != "true" {
					t.Skip("dynalite is not installed (make test installs it)")
				}
			}
			var out bytes.Buffer
			err := run(context.Background(), append([]string{"load", "-bin", bin}, tc.args...), &out)
			t.Log("\n" + out.String())
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), "no problems") {
				t.Error("the report does not end clean")
			}
		})
	}
}
