//go:build unix

package lambdaemu

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A function's environment comes from the template and the env file, a
// pull request's data; AWS_LAMBDA_RUNTIME_API is the emulator's, whatever
// they say, as the Runtime Interface Emulator that sam local runs puts its
// own address over the customer's variables (RuntimeExecEnv in
// aws-lambda-runtime-interface-emulator, lambda/rapidcore/env/environment.go:
// the Platform variables are merged last). Otherwise a template could send
// the function's polls, and the events with their tokens, elsewhere.
func TestTheRuntimeAPIIsTheEmulators(t *testing.T) {
	t.Parallel()
	s, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	bootstrap := filepath.Join(t.TempDir(), "bootstrap")
	if err := os.WriteFile(bootstrap, []byte("#!/bin/sh\necho \"$AWS_LAMBDA_RUNTIME_API $TABLE_NAME\"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer // written until the process is waited for, read after
	f, err := s.Run(bootstrap, []string{"AWS_LAMBDA_RUNTIME_API=127.0.0.1:1/elsewhere", "TABLE_NAME=plants"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-f.Exited():
	case <-time.After(30 * time.Second): // catches a hang only
		f.Stop()
		t.Fatal("the bootstrap did not end")
	}
	if got, want := strings.TrimSpace(out.String()), s.Addr()+" plants"; got != want {
		t.Errorf("the bootstrap saw %q, want %q: the emulator's address, the function's own variables", got, want)
	}
}
