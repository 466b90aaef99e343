package localtest

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/plantstore/plantstore/samlocal/gateway/gatewaytest"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// releaseAlarm is template.yaml's ReleaseServerErrorsAlarm: the stage's
// 5XXError summed over one period against its threshold.
func releaseAlarm(t *testing.T) (metric string, threshold float64) {
	t.Helper()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	p := tpl.Map("Resources", "ReleaseServerErrorsAlarm", "Properties")
	if p == nil {
		t.Fatal("template.yaml has no ReleaseServerErrorsAlarm")
	}
	if p["Statistic"] != "Sum" || p["ComparisonOperator"] != "GreaterThanOrEqualToThreshold" || fmt.Sprint(p["EvaluationPeriods"]) != "1" {
		t.Fatalf("ReleaseServerErrorsAlarm is no longer a sum against a threshold in one period: %v", p)
	}
	th, err := tpl.Number(p["Threshold"])
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(p["Namespace"], "/", p["MetricName"]), th
}

// The rollback alarm counts the stage's 5xx answers. Strangers cannot trip
// it: every request a client without a valid token can make (garbage JWTs,
// each a miss of the authorizer cache; no or malformed headers; other routes
// and methods; more than the stage's burst; oversized headers) is answered
// 4xx. And a version that fails what it is given trips it, however much junk
// surrounds it: a count is not diluted.
func TestStrangersCannotTripTheReleaseAlarm(t *testing.T) {
	t.Parallel()
	metric, threshold := releaseAlarm(t)
	if metric != "AWS/ApiGateway/5XXError" {
		t.Fatalf("ReleaseServerErrorsAlarm watches %s; this test counts the gateway's 5xx", metric)
	}
	// Requests 20 ms apart: 50 a second, inside the stage's throttle, so
	// what is counted is what each request gets (a flood beyond the throttle
	// starves everyone with 429s, which WAF's rate rule is for).
	count5xx := func(g http.Handler, c *gatewaytest.Clock, requests func(func(method, path, auth string))) (n, total int) {
		requests(func(method, path, auth string) {
			c.Advance(20 * time.Millisecond)
			a := gatewaytest.Send(g, method, path, auth)
			total++
			if a.Status >= 500 {
				n++
			}
		})
		return n, total
	}
	junk := func(do func(method, path, auth string)) {
		for i := range 300 {
			do("POST", "/plants", fmt.Sprintf("Bearer junk%d.payload%d.sig%d", i, i, i)) // a new token each: no cache hit
		}
		for _, auth := range []string{"", "Bearer", "Basic dXNlcjpwYXNz", "Bearer a.b", "Bearer " + strings.Repeat("x", 12000)} {
			do("POST", "/plants", auth)
		}
		do("GET", "/plants", gatewaytest.JWTLike)
		do("DELETE", "/plants", gatewaytest.JWTLike)
		do("POST", "/other", gatewaytest.JWTLike)
		do("POST", "//plants", "")
	}
	// The authorizer refuses what strangers send, as the real one does.
	g, _, c := newGateway(t, gatewaytest.Unauthorized, gatewaytest.Created)
	if n, total := count5xx(g, c, junk); n != 0 {
		t.Errorf("%d of %d requests without a valid token were answered 5xx: strangers could roll a release back", n, total)
	}

	// A createplant version that fails everything: its requests breach the
	// alarm in the same minute as the junk.
	failing := func([]byte) ([]byte, bool, error) {
		return []byte(`{"statusCode":500,"multiValueHeaders":{"Content-Type":["application/json"]},"body":"{\"error\":50000,\"message\":\"internal error\"}"}`), false, nil
	}
	g, _, c = newGateway(t, func(p []byte) ([]byte, bool, error) {
		if strings.Contains(string(p), "junk") {
			return gatewaytest.Unauthorized(p)
		}
		return gatewaytest.Allow(p)
	}, failing)
	n, total := count5xx(g, c, func(do func(method, path, auth string)) {
		junk(do)
		for range int(threshold) {
			do("POST", "/plants", gatewaytest.JWTLike)
		}
	})
	if float64(n) < threshold {
		t.Errorf("a failing version's %v requests among %d gave %d 5xx: under the alarm's threshold %v", threshold, total, n, threshold)
	}
	// All of it within the alarm's one minute: 314 requests 20 ms apart.
	if elapsed := c.Now().Sub(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); elapsed > time.Minute {
		t.Fatalf("the requests spanned %v, more than the alarm's period", elapsed)
	}
}
