package startapi

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/devserver/devservertest"
)

// Request data reaches make start-api's terminal escaped: the trace line of
// a request whose path is hostile, and the log line of a refused request
// whose Origin carries a C1 control (obs-text, which net/http lets
// through), show the controls written out; nothing printed holds a
// control but the newline that ends each line.
func TestRequestDataIsPrintedEscaped(t *testing.T) {
	t.Parallel()
	l := startQuickOut(t, nil)
	resp, err := http.Post(l.Banner.URL+devservertest.HostilePath, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	port := l.Banner.URL[strings.LastIndex(l.Banner.URL, ":")+1:]
	if status, _, body := devservertest.AsAPage(t, l.Banner.URL+"/plants", "rebind.example:"+port, map[string]string{"Origin": "https://evil.example/\xc2\x9b31m\x9b"}, `{}`); status != http.StatusForbidden {
		t.Fatalf("the refused request: %d %s", status, body)
	}
	l.Stdout.WaitMatch(t, regexp.MustCompile(`(?m)^\d\d:\d\d:\d\d POST `+regexp.QuoteMeta(devservertest.HostilePathEscaped)+` 404 error 40400 MISSING_AUTHENTICATION_TOKEN `))
	l.Stderr.WaitFor(t, `"origin":"https://evil.example/\u009b31m\ufffd"`, 1) // slog writes the stray byte as U+FFFD
	l.Stop()
	devservertest.NothingObeyed(t, map[string]string{"stdout": l.Stdout.String(), "stderr": l.Stderr.String()})
}
