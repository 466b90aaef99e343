package devservertest

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// HostilePath, percent-encoded, decodes to a path that, printed raw, would
// return the cursor and clear the line (a forged trace line in its place),
// clear the screen, write the clipboard (OSC 52, "pwned" in base64, ended by
// BEL), and end with DEL and the C1 control CSI (U+009B).
const HostilePath = "/plants%0D%1B[2K12:00:00%20POST%20/plants%20200%20created%201ms%1B[2J%1B]52;c;cHduZWQ=%07%7F%C2%9B31m"

// HostilePathEscaped is how a terminal line must show HostilePath
// (termsafe.Escape).
const HostilePathEscaped = `/plants\r\x1b[2K12:00:00 POST /plants 200 created 1ms\x1b[2J\x1b]52;c;cHduZWQ=\a\u007f\u009b31m`

// NothingObeyed fails the test where a tool's output holds a character a
// terminal may obey: a C0 control other than the newline that ends each
// line, DEL, a C1 control (U+0080 to U+009F), or a byte that is not UTF-8.
func NothingObeyed(t *testing.T, outputs map[string]string) {
	t.Helper()
	for name, out := range outputs {
		for i, r := range out {
			if r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD") ||
				r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Errorf("%s holds a control a terminal obeys at byte %d: %q", name, i, out[max(0, i-40):min(len(out), i+40)])
				break
			}
		}
	}
}
