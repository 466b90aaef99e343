package trace

import (
	"bytes"
	"io"
	"log/slog"
	"testing"
)

// The functions' output passes on whole lines, each escaped, the filtered
// and the unfiltered alike; a line not yet ended waits for its newline
// (termsafe.Lines, whose own test holds the rest).
func TestLogsPassLinesOnEscaped(t *testing.T) {
	t.Parallel()
	r := NewRecorder(nil)
	for name, w := range map[string]func(io.Writer) io.Writer{
		"Logs":      r.Logs,
		"LogsAbove": func(w io.Writer) io.Writer { return r.LogsAbove(w, slog.LevelInfo) },
	} {
		var out bytes.Buffer
		lw := w(&out)
		lw.Write([]byte("panic: \x1b[2J\n\tgoroutine\x1b"))
		if got, want := out.String(), `panic: \x1b[2J`+"\n"; got != want {
			t.Errorf("%s: %q before the second line ends, want %q", name, got, want)
		}
		lw.Write([]byte("]52;c;x\a\n"))
		if got, want := out.String(), `panic: \x1b[2J`+"\n"+`\tgoroutine\x1b]52;c;x\a`+"\n"; got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}
