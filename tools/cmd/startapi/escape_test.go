package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plantstore/plantstore/tools/blackbox"
)

// hostilePath, percent-encoded, decodes to a path that, printed raw, would
// return the cursor and clear the line (a forged trace line in its place),
// clear the screen, write the clipboard (OSC 52, "pwned" in base64, ended
// by BEL), and end with DEL and the C1 control CSI (U+009B).
const hostilePath = "/plants%0D%1B[2K12:00:00%20POST%20/plants%20200%20created%201ms%1B[2J%1B]52;c;cHduZWQ=%07%7F%C2%9B31m"

// escapedPath is how the terminal must show it (trace.Escape).
const escapedPath = `/plants\r\x1b[2K12:00:00 POST /plants 200 created 1ms\x1b[2J\x1b]52;c;cHduZWQ=\a\u007f\u009b31m`

// Request data reaches make start-api's terminal escaped: the trace line of
// a request whose path is hostile, and the log line of a refused request
// whose Origin carries a C1 control (obs-text, which net/http lets
// through), show the controls written out; nothing printed holds a
// control but the newline that ends each line.
func TestRequestDataIsPrintedEscaped(t *testing.T) {
	t.Parallel()
	l := startQuickOut(t, nil)
	resp, err := http.Post(l.Banner.URL+hostilePath, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	port := l.Banner.URL[strings.LastIndex(l.Banner.URL, ":")+1:]
	if status, _, body := blackbox.AsAPage(t, l.Banner.URL+"/plants", "rebind.example:"+port, map[string]string{"Origin": "https://evil.example/\xc2\x9b31m\x9b"}, `{}`); status != http.StatusForbidden {
		t.Fatalf("the refused request: %d %s", status, body)
	}
	l.Stdout.WaitMatch(t, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d POST `+regexp.QuoteMeta(escapedPath)+` 404 error 40400 MISSING_AUTHENTICATION_TOKEN `))
	l.Stderr.WaitFor(t, `"origin":"https://evil.example/\u009b31m\ufffd"`, 1) // slog writes the stray byte as U+FFFD
	l.Stop()
	for name, out := range map[string]string{"stdout": l.Stdout.String(), "stderr": l.Stderr.String()} {
		if at, ok := obeyed(out); ok {
			t.Errorf("%s holds a control a terminal obeys at byte %d: %q", name, at, out[max(0, at-40):min(len(out), at+40)])
		}
	}
}

// obeyed finds a character of out that a terminal may obey: a C0 control
// other than the newline, DEL, a C1 control (U+0080 to U+009F), or a byte
// that is not UTF-8. It returns its offset.
func obeyed(out string) (int, bool) {
	for i, r := range out {
		if r == utf8.RuneError && !strings.HasPrefix(out[i:], "\uFFFD") ||
			r < 0x20 && r != '\n' || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return i, true
		}
	}
	return 0, false
}
