// Package proctest is what tests share to watch a child process that
// internal/childproc started: Output, a writer a test can wait on for a
// line, a match or the server's banner; on Unix also the processes a tool
// started (Family) and a tool run as a terminal runs a job (Job).
package proctest

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/devserver"
)

// Output is an io.Writer that a test can wait on.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Tail is the output's last 15 lines, enough to say why a test failed.
func (o *Output) Tail() string {
	lines := strings.Split(strings.TrimRight(o.String(), "\n"), "\n")
	if len(lines) > 15 {
		lines = append([]string{fmt.Sprintf("[%d lines before]", len(lines)-15)}, lines[len(lines)-15:]...)
	}
	return strings.Join(lines, "\n")
}

// WaitFor waits until the output holds want n times, and fails the test
// after a generous bound (it only stops a hang: the wait ends on the line).
func (o *Output) WaitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for strings.Count(o.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("no %q (x%d) within 3 minutes:\n%s", want, n, o.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// WaitMatch waits until the output has a match of re and returns it; the
// bound only stops a hang, as WaitFor's.
func (o *Output) WaitMatch(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		if m := re.FindString(o.String()); m != "" {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no match of %s within 3 minutes:\n%s", re, o.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Banner waits for a tool's banner ("listening on", the token, "Try:") in o.
func (o *Output) Banner(t *testing.T) devserver.Banner {
	t.Helper()
	o.WaitFor(t, "Try:", 1)
	var b devserver.Banner
	for _, line := range strings.Split(o.String(), "\n") {
		b.Line(line)
	}
	return b
}
