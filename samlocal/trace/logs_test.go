package trace

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
)

// The functions' output passes on escaped, the filtered and the unfiltered
// alike (termsafe.Lines, whose test holds how a line waits for its
// newline).
func TestLogsPassLinesOnEscaped(t *testing.T) {
	t.Parallel()
	r := NewRecorder(nil)
	for name, w := range map[string]func(io.Writer) io.Writer{
		"Logs":      r.Logs,
		"LogsAbove": func(w io.Writer) io.Writer { return r.LogsAbove(w, slog.LevelInfo) },
	} {
		var out bytes.Buffer
		w(&out).Write([]byte("panic: \x1b[2J\n\tgoroutine\x1b]52;c;x\a\n"))
		if got, want := out.String(), `panic: \x1b[2J`+"\n"+`\tgoroutine\x1b]52;c;x\a`+"\n"; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
