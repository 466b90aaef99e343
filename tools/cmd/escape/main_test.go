package main

import (
	"strings"
	"testing"
)

func TestCopyEscaped(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"ok\n", "ok\n"},
		{"a\x1b]52;c;ZXZpbA==\x07.go:1:1: expected 'package'\nb", `a\x1b]52;c;ZXZpbA==\a.go:1:1: expected 'package'` + "\nb"},
		{"\u009b31m\xff\n", `\u009b31m\xff` + "\n"},
	} {
		var b strings.Builder
		if err := copyEscaped(&b, strings.NewReader(tc.in)); err != nil || b.String() != tc.want {
			t.Errorf("copyEscaped(%q) = %q, %v; want %q", tc.in, b.String(), err, tc.want)
		}
	}
}
