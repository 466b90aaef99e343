package glyph

import (
	"strconv"
	"unicode/utf16"
)

// LoneSurrogate reports whether the JSON text raw holds a \u escape of a
// surrogate (U+D800-U+DFFF) that is not half of a pair: a high half
// (\ud800-\udbff) that the escape of a low half (\udc00-\udfff) does not
// follow at once, or a low half with no high half before it. Such an escape
// names no character, and encoding/json reads it as U+FFFD, so that
// "adm\ud800in" and "adm\udc00in" would be one string; a name, a tag or a
// token's subject holding one is refused instead.
//
// raw is JSON as sent, a string with or without its quotes. Every other
// escape (\\, \", \n) is passed over whole, so the text "\\ud800" holds no
// escape of a surrogate; a \u without four hex digits after it escapes no
// code point (a decoder refuses it) and is passed over too.
func LoneSurrogate(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		r, ok := unitEscape(raw[i:])
		if !ok {
			i++ // on the escaped character: \\ or \" never starts an escape
			continue
		}
		i += 5 // on the escape's last digit
		switch {
		case !utf16.IsSurrogate(r):
		case r >= 0xDC00:
			return true // a low half first
		default:
			if lo, ok := unitEscape(raw[i+1:]); !ok || lo < 0xDC00 || lo > 0xDFFF {
				return true // a high half with no low half after it
			}
			i += 6
		}
	}
	return false
}

// unitEscape reads the \uXXXX escape that starts b: one UTF-16 code unit.
func unitEscape(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(b[2:6]), 16, 16)
	return rune(v), err == nil
}
