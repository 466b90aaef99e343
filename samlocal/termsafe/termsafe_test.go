package termsafe

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Escape writes out, in Go's quoted style, every character a terminal may
// obey (the C0 controls, tab and newline included, DEL, the C1 controls and
// bytes that are not UTF-8) and nothing else: what it writes reads back,
// as a Go string literal, as what it was given.
func TestEscapeWritesOutWhatATerminalObeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"/plants\r\x1b[2K\x1b[2J\x1b]52;c;cHduZWQ=\a", `/plants\r\x1b[2K\x1b[2J\x1b]52;c;cHduZWQ=\a`},
		{"a\tb\nc\x00\x7f", `a\tb\nc\x00\u007f`},
		{"\u0080\u009b\u009f", `\u0080\u009b\u009f`},
		{"\x9b[31m", `\x9b[31m`},                             // a lone byte: CSI to an 8-bit terminal
		{"\u00a0é→\uFFFD", "\u00a0é→\uFFFD"},                 // printable, or just past C1
		{`{"path":"\u001b\"x\""}`, `{"path":"\u001b\"x\""}`}, // a JSON line as slog writes it
		{`\x1b`, `\x1b`}, // the four characters, which no terminal obeys
	} {
		if got := Escape(tc.in); got != tc.want {
			t.Errorf("Escape(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
	// Every byte, and every character up to U+00FF and some beyond.
	var all []string
	for b := range 256 {
		all = append(all, string([]byte{byte(b)}))
	}
	for r := rune(0); r < 0x100; r++ {
		all = append(all, string(r))
	}
	all = append(all, "\u2028", "\U0001F331", "x\xc2") // a cut sequence
	for _, s := range all {
		got := Escape(s)
		for i, r := range got {
			if r == utf8.RuneError && !strings.HasPrefix(got[i:], "\uFFFD") || r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Errorf("Escape(%q) = %q holds %q", s, got, r)
			}
		}
		if s == `"` || s == `\` {
			continue // left as they are; a literal would need them escaped
		}
		if back, err := strconv.Unquote(`"` + got + `"`); err != nil || back != s {
			t.Errorf("Escape(%q) = %s reads back as %q (%v)", s, got, back, err)
		}
	}
}

// CopyEscaped passes on each line escaped (Escaper), and at the end of its
// input a last line that has no newline: the end of a build's output
// (tools/cmd/escape).
func TestCopyEscaped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"ok\n", "ok\n"},
		{"a\x1b]52;c;ZXZpbA==\x07.go:1:1: expected 'package'\nb", `a\x1b]52;c;ZXZpbA==\a.go:1:1: expected 'package'` + "\nb"},
		{"\u009b31m\xff\n", `\u009b31m\xff` + "\n"},
	} {
		var b strings.Builder
		if err := CopyEscaped(&b, strings.NewReader(tc.in)); err != nil || b.String() != tc.want {
			t.Errorf("CopyEscaped(%q) = %q, %v; want %q", tc.in, b.String(), err, tc.want)
		}
	}
}

// Escaper holds a line until its newline (an escape sequence cannot be told
// from the text around it before), then passes it on escaped; Lines passes
// on only the whole lines keep takes, each seen once.
func TestLinesWaitForTheirNewline(t *testing.T) {
	t.Parallel()
	var seen []string
	for name, w := range map[string]func(io.Writer) io.Writer{
		"Escaper": Escaper,
		"Lines": func(w io.Writer) io.Writer {
			return Lines(w, func(line string) bool { seen = append(seen, line); return !strings.HasPrefix(line, "drop") })
		},
	} {
		var out strings.Builder
		lw := w(&out)
		lw.Write([]byte("panic: \x1b[2J\n\tgoroutine\x1b"))
		if got, want := out.String(), `panic: \x1b[2J`+"\n"; got != want {
			t.Errorf("%s: %q before the second line ends, want %q", name, got, want)
		}
		lw.Write([]byte("]52;c;x\a\ndrop me\n"))
		want := `panic: \x1b[2J` + "\n" + `\tgoroutine\x1b]52;c;x\a` + "\n"
		if name == "Escaper" {
			want += "drop me\n"
		}
		if got := out.String(); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	if want := []string{"panic: \x1b[2J", "\tgoroutine\x1b]52;c;x\a", "drop me"}; !slices.Equal(seen, want) {
		t.Errorf("keep saw %q, want %q", seen, want)
	}
}
