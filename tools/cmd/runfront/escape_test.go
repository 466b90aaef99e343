package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/plantstore/plantstore/tools/watch/watchtest"
)

// Request data reaches make run TRACE=1's terminal escaped: a request
// whose path would, printed raw, return the cursor and clear the line (a
// forged trace line in its place), clear the screen, write the clipboard
// (OSC 52) and end with DEL and CSI (U+009B) is shown with those written
// out, in its trace line and in the local API's request line passed
// through (JSON escapes the C0 controls there, not DEL or the C1 ones);
// nothing printed holds a control but the newline that ends each line.
func TestRequestDataIsPrintedEscaped(t *testing.T) {
	t.Parallel()
	env := append(os.Environ(), "PORT=0", "LOG_LEVEL=", "STORE_PATH="+filepath.Join(t.TempDir(), "plants.db"))
	l := watchtest.Launch(t, true, func(ctx context.Context, stdout, stderr io.Writer) error {
		return run(ctx, env, stdout, stderr, "../../..", false)
	})
	const hostile = "/plants%0D%1B[2K12:00:00%20POST%20/plants%20200%20created%201ms%1B[2J%1B]52;c;cHduZWQ=%07%7F%C2%9B31m"
	req, _ := http.NewRequest("POST", l.Banner.URL+hostile, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.Banner.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	l.Stdout.WaitMatch(t, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d POST `+
		regexp.QuoteMeta(`/plants\r\x1b[2K12:00:00 POST /plants 200 created 1ms\x1b[2J\x1b]52;c;cHduZWQ=\a\u007f\u009b31m`)+` 404 `))
	l.Stderr.WaitFor(t, `"path":"/plants\r\u001b[2K12:00:00 POST /plants 200 created 1ms\u001b[2J\u001b]52;c;cHduZWQ=\u0007\u007f\u009b31m"`, 1)
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
