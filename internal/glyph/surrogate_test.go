package glyph_test

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plantstore/plantstore/internal/glyph"
)

func TestLoneSurrogate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		raw  string // JSON string text, as sent
		want bool
	}{
		{"valid pair", `"\ud83c\udf31"`, false},
		{"valid pair in upper case", `"\uD83C\uDF31"`, false},
		{"valid pair between letters", `"a\ud83c\udf31b"`, false},
		{"two valid pairs", `"\ud83c\udf31\ud83c\udf3f"`, false},
		{"lone high", `"adm\ud800in"`, true},
		{"lone high at the end", `"admin\uDBFF"`, true},
		{"lone high before a letter", `"\ud83cA"`, true},
		{"lone high before a non-surrogate escape", `"\ud800\u0041"`, true},
		{"lone high before another escape", `"\ud800\n"`, true},
		{"two highs then a low", `"\ud83c\ud83c\udf31"`, true},
		{"lone low", `"\udc00admin"`, true},
		{"lone low at the end", `"x\udfff"`, true},
		{"low then high", `"\udc00\ud800"`, true},
		{"valid pair then lone low", `"\ud83c\udf31\udf31"`, true},
		{"lone high without quotes", `\ud800`, true},
		{"escaped backslash before u", `"\\ud800"`, false},
		{"escaped backslash before a pair's low half", `"\ud83c\\udf31"`, true},
		{"three backslashes before u", `"\\\ud800"`, true},
		{"escaped quote", `"\"\u0041"`, false},
		{"truncated escape", `"\ud80"`, false},
		{"truncated escape at the end", `\ud8`, false},
		{"truncated low half", `"\ud800\udc0"`, true},
		{"escape without digits", `"\uzzzz"`, false},
		{"backslash at the end", `\`, false},
		{"non-escape text", `"ud800 and udc00"`, false},
		{"non-surrogate escapes", `"\u0041\u00e9\uffff\ud7ff\ue000"`, false},
		{"surrogate as UTF-8 bytes is no escape", `"` + "\xed\xa0\x80" + `"`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := glyph.LoneSurrogate([]byte(tt.raw)); got != tt.want {
				t.Errorf("LoneSurrogate(%s) = %v, want %v", tt.raw, got, tt.want)
			}
			// The reason for the rule: where raw is a JSON string with no
			// U+FFFD of its own, encoding/json makes a U+FFFD exactly of
			// the lone surrogates.
			var s string
			if !utf8.ValidString(tt.raw) || json.Unmarshal([]byte(tt.raw), &s) != nil {
				return
			}
			if got := strings.ContainsRune(s, utf8.RuneError); got != tt.want {
				t.Errorf("encoding/json read %s as %+q: holds U+FFFD = %v, want %v", tt.raw, s, got, tt.want)
			}
		})
	}
}

// FuzzLoneSurrogate holds LoneSurrogate to encoding/json: in a JSON string
// with no U+FFFD of its own (neither the character nor its escape), the
// decoder makes a U+FFFD exactly when LoneSurrogate reports one.
func FuzzLoneSurrogate(f *testing.F) {
	for _, seed := range []string{`"\ud83c\udf31"`, `"a\ud800"`, `"\udc00\ud800"`, `"\\ud800"`, `"\\\ud800"`, `"\ud800\u0041"`, `"\u00e9"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got := glyph.LoneSurrogate([]byte(raw)) // never panics, whatever raw is
		var s string
		if !utf8.ValidString(raw) || strings.ContainsRune(raw, utf8.RuneError) ||
			strings.Contains(strings.ToLower(raw), `ufffd`) || json.Unmarshal([]byte(raw), &s) != nil {
			return
		}
		if want := strings.ContainsRune(s, utf8.RuneError); got != want {
			t.Errorf("LoneSurrogate(%s) = %v, but encoding/json read it as %+q", raw, got, s)
		}
	})
}
