// Package termsafe writes text that came from elsewhere (a request, a
// function's log line, a build's output) to a terminal so that the
// terminal shows it and obeys none of it: Escape for a string, Escaper and
// CopyEscaped for a stream of lines. It needs nothing but the standard
// library, so that a tool may use it without what samlocal/trace brings.
package termsafe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"unicode/utf8"
)

// Escape returns s with every character that a terminal may obey written
// out in Go's quoted style, so that what a request carries (its path, its
// query and headers, a function's log line of it, the trace line made of
// them) is shown on the terminal, never obeyed: a carriage return that
// rewrites a line, ESC [2J that clears the screen, ESC ]52 that writes the
// clipboard. Written out:
//
//   - the C0 controls, U+0000 to U+001F: \a \b \t \n \v \f \r by name, the
//     others as \xNN (ESC is \x1b). Tab too: it moves the cursor, and a
//     line that is one line on the terminal must not hold a line break;
//   - DEL and the C1 controls, U+007F and U+0080 to U+009F, as \u00NN
//     (U+009B is CSI and U+009D OSC to a terminal that reads them): the
//     \u form is JSON's too, so a JSON line stays the same JSON;
//   - a byte that is not UTF-8, as \xNN (a lone 0x9b is CSI to a terminal
//     that reads bytes).
//
// Everything else is left as it is, the backslash included: JSON log lines
// keep their \" and \u001b, and a literal "\x1b" in a request is shown as
// the four characters it is, which no terminal obeys.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x20:
			if name, ok := named[r]; ok {
				b.WriteString(name)
			} else {
				fmt.Fprintf(&b, `\x%02x`, r)
			}
		case r == 0x7f || r >= 0x80 && r <= 0x9f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

var named = map[rune]string{'\a': `\a`, '\b': `\b`, '\t': `\t`, '\n': `\n`, '\v': `\v`, '\f': `\f`, '\r': `\r`}

// needsEscape reports whether Escape changes s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return true
		} else if c >= utf8.RuneSelf {
			// Only here can a C1 control or a stray byte be.
			for _, r := range s[i:] {
				if r == utf8.RuneError || r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
					return true
				}
			}
			return false
		}
	}
	return false
}

// Escaper returns a writer that passes what is written to it on to w one
// line at a time, each line escaped (Escape) and ended by its newline. The
// start of a line is held until its newline comes, or passed on, escaped,
// once it passes 64 KiB. For output that request data reaches: the
// functions' output, and the loggers of the tools in front of them.
func Escaper(w io.Writer) io.Writer { return &escaper{w: w} }

// Lines is Escaper passing on only the lines that keep takes. keep sees
// every whole line, in order, one at a time; a start of a line passed on
// at 64 KiB is not a line, and passes unasked (samlocal/trace's log
// writers read each line and keep those at a level).
func Lines(w io.Writer, keep func(line string) bool) io.Writer {
	return &escaper{w: w, keep: keep}
}

type escaper struct {
	w    io.Writer
	keep func(string) bool // nil: every line
	mu   sync.Mutex
	part []byte // a line not yet ended
}

// maxPart bounds a line held for its newline.
const maxPart = 64 << 10

func (e *escaper) Write(p []byte) (int, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.part = append(e.part, p...)
	var out []byte
	for {
		i := bytes.IndexByte(e.part, '\n')
		if i < 0 {
			break
		}
		if line := string(e.part[:i]); e.keep == nil || e.keep(line) {
			out = append(append(out, Escape(line)...), '\n')
		}
		e.part = e.part[i+1:]
	}
	if len(e.part) > maxPart {
		out = append(out, Escape(string(e.part))...)
		e.part = nil
	}
	if len(out) > 0 {
		if _, err := e.w.Write(out); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

// CopyEscaped copies r to w through an Escaper, and at r's end passes on,
// escaped, a last line that has no newline. Each line reaches w as soon as
// a read of r completes it.
func CopyEscaped(w io.Writer, r io.Reader) error {
	e := &escaper{w: w}
	if _, err := io.Copy(e, r); err != nil {
		return err
	}
	if len(e.part) == 0 {
		return nil
	}
	_, err := io.WriteString(w, Escape(string(e.part)))
	return err
}
