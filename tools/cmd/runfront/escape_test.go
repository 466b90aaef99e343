package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
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
	l := launchTraced(t)
	req, _ := http.NewRequest("POST", l.Banner.URL+devservertest.HostilePath, strings.NewReader(`{}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+l.Banner.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	l.Stdout.WaitMatch(t, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d POST `+
		regexp.QuoteMeta(devservertest.HostilePathEscaped)+` 404 `))
	l.Stderr.WaitFor(t, `"path":"/plants\r\u001b[2K12:00:00 POST /plants 200 created 1ms\u001b[2J\u001b]52;c;cHduZWQ=\u0007\u007f\u009b31m"`, 1)
	l.Stop()
	devservertest.NothingObeyed(t, map[string]string{"stdout": l.Stdout.String(), "stderr": l.Stderr.String()})
}
