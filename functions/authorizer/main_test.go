package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/childproc"

	"github.com/aws/aws-lambda-go/events"
	"github.com/golang-jwt/jwt/v5"

	"github.com/plantstore/plantstore/functions/internal/emf/emftest"
	"github.com/plantstore/plantstore/internal/auth"
	"github.com/plantstore/plantstore/internal/fixtures"
	"github.com/plantstore/plantstore/internal/lambdatest"
	"gopkg.in/yaml.v3"
)

var update = flag.Bool("update", false, "rewrite the golden responses")

func TestMain(m *testing.M) {
	code := m.Run()
	lambdatest.Cleanup()
	childproc.StopAll()
	os.Exit(code)
}

// fixtureEnv is events/env.json's AuthorizerFunction entry.
func fixtureEnv(t *testing.T) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(srctree.Path("events", "env.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env map[string]map[string]string
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	return env["AuthorizerFunction"]
}

func readEvent(t *testing.T, name string) (events.APIGatewayCustomAuthorizerRequest, []byte) {
	t.Helper()
	return lambdatest.Event[events.APIGatewayCustomAuthorizerRequest](t, name)
}

// checkGolden compares what the authorizer answered (its policy, or its
// error message) with testdata/<name>.golden.json.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	lambdatest.Golden(t, name, got, *update)
}

// TestFixtures feeds every authorizer event through the handler.
func TestFixtures(t *testing.T) {
	t.Parallel()
	env := fixtureEnv(t)
	a, err := newAuthorizer(t.Context(), func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fixtures.Authorizer() {
		ev, _ := readEvent(t, f.Name)
		resp, err := a.handle(context.Background(), ev)
		var got []byte
		if err != nil {
			got, _ = json.Marshal(map[string]string{"errorMessage": err.Error()})
		} else {
			got, _ = json.Marshal(resp)
		}
		checkGolden(t, f.Name, got)
	}
}

func TestPolicy(t *testing.T) {
	t.Parallel()
	env := fixtureEnv(t)
	a, err := newAuthorizer(t.Context(), func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := readEvent(t, "authorizer-valid")
	resp, err := a.handle(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	st := resp.PolicyDocument.Statement
	if len(st) != 1 || st[0].Effect != "Allow" || len(st[0].Resource) != 1 ||
		st[0].Resource[0] != "arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/v1/*/*" {
		t.Errorf("policy = %+v, want Allow on the calling API and stage only", resp.PolicyDocument)
	}
	if resp.PrincipalID != fixtures.Subject || resp.Context["sub"] != fixtures.Subject || len(resp.Context) != 1 {
		t.Errorf("principal %q, context %v", resp.PrincipalID, resp.Context)
	}
}

// A direct invoker that asks about a wildcard ARN gets no policy at all, and
// a token whose claims hold SUB beside sub, or a subject that is not one
// principal (a lone surrogate escape, an invalid byte, a bidi override, a
// line separator), speaks for nobody.
func TestHostileEventsAreUnauthorized(t *testing.T) {
	t.Parallel()
	env := fixtureEnv(t)
	a, err := newAuthorizer(t.Context(), func(k string) string { return env[k] }, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	valid, _ := readEvent(t, "authorizer-valid")
	for _, arn := range []string{"arn:aws:execute-api:*:*:*/*/*/*", "arn:*:execute-api:us-east-1:123456789012:a1b2c3d4e5/v1/POST/plants", "arn:aws:execute-api:us-east-1::a1b2c3d4e5/v1/POST/plants"} {
		ev := valid
		ev.MethodArn = arn
		if resp, err := a.handle(context.Background(), ev); err == nil || err.Error() != "Unauthorized" {
			t.Errorf("methodArn %s: policy %+v, error %v; want Unauthorized", arn, resp.PolicyDocument, err)
		}
	}
	for name, subject := range map[string]string{
		"SUB beside sub":          `"tester","SUB":"admin"`,
		"a lone surrogate escape": `"adm\ud800in"`,
		"an invalid byte":         `"adm` + "\xff" + `in"`,
		"a bidi override":         `"nimda\u202e"`,
		"a line separator":        `"admin\u2028"`,
	} {
		claims := fmt.Sprintf(`{"iss":%q,"aud":%q,"sub":%s,"scope":%q,"exp":%d}`, env["AUTH_ISSUER"], env["AUTH_AUDIENCE"], subject, env["AUTH_REQUIRED_SCOPE"], time.Now().Add(time.Hour).Unix())
		enc := base64.RawURLEncoding
		unsigned := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`)) + "." + enc.EncodeToString([]byte(claims))
		sig, err := jwt.SigningMethodHS256.Sign(unsigned, []byte(env["AUTH_HS256_SECRET"]))
		if err != nil {
			t.Fatal(err)
		}
		ev := valid
		ev.AuthorizationToken = "Bearer " + unsigned + "." + enc.EncodeToString(sig)
		if resp, err := a.handle(context.Background(), ev); err == nil || err.Error() != "Unauthorized" {
			t.Errorf("token with %s: principal %q, error %v; want Unauthorized", name, resp.PrincipalID, err)
		}
	}
}

// deadlineTransport fails every JWKS request at once, after noting the
// deadline of its context.
type deadlineTransport struct {
	mu   sync.Mutex
	seen []time.Time
}

func (d *deadlineTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	dl, _ := r.Context().Deadline()
	d.mu.Lock()
	d.seen = append(d.seen, dl)
	d.mu.Unlock()
	return nil, errors.New("the issuer is down")
}

// The key lookup ends before the invocation does: the JWKS fetch carries a
// deadline taken from the invocation's context (Lambda's deadline), a
// little before it, so that the authorizer answers "Unauthorized" and logs
// why instead of being killed by Lambda's timeout. Read from the deadline
// the fetch carries, not from a stopwatch; and the token is never logged.
func TestKeyLookupEndsBeforeTheInvocation(t *testing.T) {
	t.Parallel()
	rec := &deadlineTransport{}
	var logs strings.Builder
	logger := slog.New(slog.NewJSONHandler(&logs, nil))
	v, err := auth.NewVerifier(t.Context(), auth.Config{
		Issuer: fixtures.Issuer, Audience: fixtures.Audience, JWKSURL: "http://127.0.0.1:9/jwks.json",
		HTTPClient: &http.Client{Transport: rec}, Logger: logger,
	})
	if err != nil {
		t.Fatal(err)
	}
	a := &authorizer{verifier: v, logger: logger, now: time.Now}
	token := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","kid":"k1","typ":"JWT"}`)) + ".e30.c2ln"
	invocation := time.Now().Add(time.Hour) // far: only the deadline's arithmetic is under test
	ctx, cancel := context.WithDeadline(context.Background(), invocation)
	defer cancel()
	_, err = a.handle(ctx, events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "Bearer " + token, MethodArn: fixtures.LocalMethodARN})
	if err == nil || err.Error() != "Unauthorized" {
		t.Fatalf("error %v, want Unauthorized", err)
	}
	rec.mu.Lock()
	seen := slices.Clone(rec.seen)
	rec.mu.Unlock()
	if len(seen) == 0 {
		t.Fatal("no JWKS fetch")
	}
	for _, dl := range seen {
		if !dl.Before(invocation) || dl.Before(invocation.Add(-time.Second)) {
			t.Errorf("a JWKS fetch's deadline is %v, want within the second before the invocation's %v", dl, invocation)
		}
	}
	if !strings.Contains(logs.String(), `"reason":"keys_unavailable"`) || strings.Contains(logs.String(), token[10:]) {
		t.Errorf("log:\n%s\nwant keys_unavailable, and never the token", logs.String())
	}
}

func TestStageResource(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/POST/plants":         "arn:aws:execute-api:eu-west-1:111122223333:abc123/v1/*/*",
		"arn:aws-cn:execute-api:cn-north-1:111122223333:abc123/prod/GET/a/b/c":     "arn:aws-cn:execute-api:cn-north-1:111122223333:abc123/prod/*/*",
		"arn:aws-us-gov:execute-api:us-gov-west-1:111122223333:a_b-C/dev_1/POST/x": "arn:aws-us-gov:execute-api:us-gov-west-1:111122223333:a_b-C/dev_1/*/*",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1/POST/":               "arn:aws:execute-api:us-east-1:111122223333:abc123/v1/*/*",
		// Wildcards, wherever they stand, never reach the policy.
		"arn:aws:execute-api:*:*:*/*/*/*":                                  "",
		"arn:aws:execute-api:us-east-1:111122223333:*/v1/POST/plants":      "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/*/POST/plants":  "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1/*/plants":    "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1/POST/*":      "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1/POST/pl?nts": "",
		"arn:aws:execute-api:us-east-?:111122223333:abc123/v1/POST/plants": "",
		"arn:aws:execute-api:us-east-1:11112222333?:abc123/v1/POST/plants": "",
		"arn:*:execute-api:us-east-1:111122223333:abc123/v1/POST/plants":   "",
		"arn:aws:execute-api:us-east-1:111122223333:ab?23/v1/POST/plants":  "",
		// Empty or malformed parts.
		"arn:aws:execute-api::111122223333:abc123/v1/POST/plants":           "",
		"arn:aws:execute-api:us-east-1::abc123/v1/POST/plants":              "",
		"arn:aws:execute-api:us-east-1:1111:abc123/v1/POST/plants":          "",
		"arn::execute-api:us-east-1:111122223333:abc123/v1/POST/plants":     "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1//plants":      "",
		"arn:aws:execute-api:us-east-1:111122223333:abc.123/v1/POST/plants": "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1/POST":         "",
		"arn:aws:lambda:us-east-1:111122223333:function:x":                  "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123":                 "",
		"arn:aws:execute-api:us-east-1:111122223333:abc123/v1":              "",
		"arn:aws:execute-api:us-east-1:111122223333://POST/plants":          "",
		"*": "",
		"":  "",
	}
	for in, want := range tests {
		got, ok := stageResource(in)
		if got != want || ok != (want != "") {
			t.Errorf("stageResource(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestNewAuthorizerRefusesToAllowEverything(t *testing.T) {
	t.Parallel()
	for name, env := range map[string]map[string]string{
		"nothing":      {},
		"no issuer":    {"AUTH_AUDIENCE": "a", "AUTH_HS256_SECRET": fixtures.Secret},
		"no audience":  {"AUTH_ISSUER": "i", "AUTH_HS256_SECRET": fixtures.Secret},
		"no key":       {"AUTH_ISSUER": "i", "AUTH_AUDIENCE": "a"},
		"short secret": {"AUTH_ISSUER": "i", "AUTH_AUDIENCE": "a", "AUTH_HS256_SECRET": "short"},
		"two key sources": {"AUTH_ISSUER": "i", "AUTH_AUDIENCE": "a", "AUTH_HS256_SECRET": fixtures.Secret,
			"AUTH_JWKS_URL": "https://issuer.example/.well-known/jwks.json"},
	} {
		if _, err := newAuthorizer(context.Background(), func(k string) string { return env[k] }, slog.New(slog.DiscardHandler)); err == nil {
			t.Errorf("%s: newAuthorizer succeeded", name)
		}
	}
}

// TestBootstrap runs the real binary, built by `make build-AuthorizerFunction`,
// on the test Runtime API with every fixture, and checks a failed init.
func TestBootstrap(t *testing.T) {
	t.Parallel()
	bin := lambdatest.Bootstrap(t, "AuthorizerFunction")
	var env []string
	for k, v := range fixtureEnv(t) {
		env = append(env, k+"="+v)
	}
	fn := lambdatest.Launch(t, bin, env)
	for _, f := range fixtures.Authorizer() {
		_, raw := readEvent(t, f.Name)
		res := fn.Invoke(t, raw, 5*time.Second)
		got := res.Payload
		if res.Error != nil {
			var doc struct {
				ErrorMessage string `json:"errorMessage"`
			}
			json.Unmarshal(res.Error, &doc)
			got, _ = json.Marshal(map[string]string{"errorMessage": doc.ErrorMessage})
		}
		checkGolden(t, f.Name, got)
	}
	if strings.Contains(fn.Output.String(), fixtures.ValidToken()[40:]) {
		t.Errorf("the authorizer logged a token:\n%s", fn.Output.String())
	}

	t.Run("init error", func(t *testing.T) {
		lambdatest.InitFails(t, bin, []string{"AUTH_AUDIENCE=a", "AUTH_HS256_SECRET=" + fixtures.Secret}, "issuer")
	})
	t.Run("init error: two key sources", func(t *testing.T) {
		lambdatest.InitFails(t, bin, []string{"AUTH_ISSUER=i", "AUTH_AUDIENCE=a", "AUTH_HS256_SECRET=" + fixtures.Secret,
			"AUTH_JWKS_URL=https://issuer.example/.well-known/jwks.json"}, "AUTH_HS256_SECRET and AUTH_JWKS_URL are both set")
	})
}

// authorizeLines runs the real binary with env on events, and returns its
// output lines.
func authorizeLines(t *testing.T, env []string, events ...[]byte) []string {
	t.Helper()
	fn := lambdatest.Launch(t, lambdatest.Bootstrap(t, "AuthorizerFunction"), env)
	for _, raw := range events {
		fn.Invoke(t, raw, 5*time.Second)
	}
	fn.Stop()
	return strings.Split(strings.TrimSpace(fn.Output.String()), "\n")
}

// decisions reads each authorize line as EMF and returns Decision/Reason,
// the stack-wide RefusedTokens and KeysUnavailable, and the line's level.
func decisions(t *testing.T, lines []string) []string {
	t.Helper()
	var got []string
	for _, line := range lines {
		var rec struct{ Msg, Level string }
		if json.Unmarshal([]byte(line), &rec) != nil || rec.Msg != "authorize" {
			continue
		}
		metrics, err := emftest.Check([]byte(line))
		if err != nil {
			t.Errorf("not EMF: %v\n%s", err, line)
			continue
		}
		var decision, reason string
		var refused, keys, signed, signedRefused float64
		for _, m := range metrics {
			switch {
			case m.Name == "Tokens" && m.Dimensions["Decision"] != "":
				decision = m.Dimensions["Decision"]
			case m.Name == "Tokens" && m.Dimensions["Reason"] != "":
				reason = m.Dimensions["Reason"]
			case m.Name == "RefusedTokens":
				refused = m.Value
			case m.Name == "KeysUnavailable":
				keys = m.Value
			case m.Name == "SignedTokens":
				signed = m.Value
			case m.Name == "SignedRefusals":
				signedRefused = m.Value
			}
		}
		got = append(got, fmt.Sprintf("%s/%s refused=%v keys=%v signed=%v/%v %s", decision, reason, refused, keys, signed, signedRefused, rec.Level))
	}
	return got
}

// Each decision is counted apart, with its reason; a bad token is INFO and
// never counts as keys unavailable; a JWKS that cannot be fetched is an
// ERROR line and the keys-unavailable metric.
func TestMetricsThroughTheBootstrap(t *testing.T) {
	t.Parallel()
	var env []string
	for k, v := range fixtureEnv(t) {
		env = append(env, k+"="+v)
	}
	env = append(env, "METRICS_NAMESPACE=PlantStore/test")
	var evs [][]byte
	for _, name := range []string{"authorizer-valid", "authorizer-missing-scope", "authorizer-expired", "authorizer-garbage"} {
		_, raw := readEvent(t, name)
		evs = append(evs, raw)
	}
	// Signed with the issuer's secret for another issuer (a changed
	// AuthIssuer: the stack's outage), and the same claims with a secret of
	// a stranger's (garbage, whatever its claims say).
	fx := fixtureEnv(t)
	wrongIssuer := auth.TokenSpec{Issuer: "https://elsewhere.example", Audience: fx["AUTH_AUDIENCE"], Subject: "client", Scope: fx["AUTH_REQUIRED_SCOPE"], IssuedAt: time.Now(), TTL: time.Hour}
	for _, secret := range []string{fx["AUTH_HS256_SECRET"], strings.Repeat("s", 40)} {
		tok, err := auth.NewHS256Token([]byte(secret), wrongIssuer)
		if err != nil {
			t.Fatal(err)
		}
		ev, _ := json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "Bearer " + tok, MethodArn: fixtures.LocalMethodARN})
		evs = append(evs, ev)
	}
	lines := authorizeLines(t, env, evs...)
	want := []string{
		"allowed/none refused=0 keys=0 signed=1/0 INFO",
		"denied/insufficient_scope refused=0 keys=0 signed=1/0 INFO",
		"refused/expired refused=1 keys=0 signed=1/1 INFO",
		"refused/malformed refused=1 keys=0 signed=0/0 INFO",
		"refused/wrong_issuer refused=1 keys=0 signed=1/1 INFO",
		"refused/bad_signature refused=1 keys=0 signed=0/0 INFO",
	}
	if got := decisions(t, lines); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("decisions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, line := range lines {
		if strings.Contains(line, `"level":"ERROR"`) {
			t.Errorf("a client's bad token made an ERROR line: %s", line)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	jwks := "http://" + ln.Addr().String() + "/jwks.json"
	ln.Close() // nothing listens: the keys cannot be fetched
	down := []string{"AUTH_ISSUER=" + fixtures.Issuer, "AUTH_AUDIENCE=" + fixtures.Audience, "AUTH_JWKS_URL=" + jwks, "METRICS_NAMESPACE=PlantStore/test"}
	rs256 := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"RS256","kid":"k1","typ":"JWT"}`)) + ".e30.c2ln"
	ev, _ := json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "Bearer " + rs256, MethodArn: fixtures.LocalMethodARN})
	lines = authorizeLines(t, down, ev)
	if got := decisions(t, lines); len(got) != 1 || got[0] != "refused/keys_unavailable refused=1 keys=1 signed=0/0 ERROR" {
		t.Errorf("with the JWKS down: %v\n%s", got, strings.Join(lines, "\n"))
	}
	if !strings.Contains(strings.Join(lines, "\n"), `"level":"ERROR","msg":"JWKS fetch failed"`) {
		t.Errorf("no ERROR line for the failed fetch:\n%s", strings.Join(lines, "\n"))
	}
}

// TokensRefusedAlarm (template.yaml) divides SignedRefusals by SignedTokens
// over 5 minutes once there are enough signed tokens. Twenty garbage
// tokens from a stranger (each a new token, so each reaches the authorizer
// past the gateway's cache) beside one good client leave it at 0; three
// clients whose tokens name another issuer (AuthIssuer changed) breach it.
func TestStrangersCannotPageTokensRefused(t *testing.T) {
	t.Parallel()
	alarm := tokensRefusedAlarm(t)
	threshold := alarm.Threshold
	var expr string
	var names []string
	for _, m := range alarm.Metrics {
		if m.ID == "share" {
			expr = m.Expression
		}
		names = append(names, m.MetricStat.Metric.MetricName)
	}
	m := regexp.MustCompile(`^IF\(signed >= ([0-9]+), refused / signed, 0\)$`).FindStringSubmatch(expr)
	if m == nil || !slices.Contains(names, "SignedRefusals") || !slices.Contains(names, "SignedTokens") || alarm.ComparisonOperator != "GreaterThanThreshold" {
		t.Fatalf("TokensRefusedAlarm is no longer SignedRefusals / SignedTokens over a minimum: %s of %v, %s", expr, names, alarm.ComparisonOperator)
	}
	minimum, _ := strconv.Atoi(m[1])
	share := func(lines []string) float64 {
		var signed, refused float64
		for _, line := range lines {
			metrics, err := emftest.Check([]byte(line))
			if err != nil {
				continue
			}
			for _, m := range metrics {
				switch m.Name {
				case "SignedTokens":
					signed += m.Value
				case "SignedRefusals":
					refused += m.Value
				}
			}
		}
		if signed < float64(minimum) {
			return 0
		}
		return refused / signed
	}
	fx := fixtureEnv(t)
	var env []string
	for k, v := range fx {
		env = append(env, k+"="+v)
	}
	env = append(env, "METRICS_NAMESPACE=PlantStore/test")
	event := func(token string) []byte {
		ev, _ := json.Marshal(events.APIGatewayCustomAuthorizerRequest{Type: "TOKEN", AuthorizationToken: "Bearer " + token, MethodArn: fixtures.LocalMethodARN})
		return ev
	}
	sign := func(secret, issuer string) string {
		tok, err := auth.NewHS256Token([]byte(secret), auth.TokenSpec{Issuer: issuer, Audience: fx["AUTH_AUDIENCE"], Subject: "client", Scope: fx["AUTH_REQUIRED_SCOPE"], IssuedAt: time.Now(), TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}

	flood := [][]byte{event(sign(fx["AUTH_HS256_SECRET"], fx["AUTH_ISSUER"]))}
	for i := range 20 {
		switch i % 3 {
		case 0:
			flood = append(flood, event(fmt.Sprintf("junk%d.junk.junk", i)))
		case 1:
			flood = append(flood, event(sign(strings.Repeat("x", 32)+strconv.Itoa(i), "https://elsewhere.example"))) // any claims, a stranger's key
		default:
			flood = append(flood, event(sign(strings.Repeat("y", 32)+strconv.Itoa(i), fx["AUTH_ISSUER"])))
		}
	}
	if s := share(authorizeLines(t, env, flood...)); s > threshold {
		t.Errorf("20 garbage tokens beside one good client: share %v > %v, the alarm would page", s, threshold)
	}

	var outage [][]byte
	for range minimum {
		outage = append(outage, event(sign(fx["AUTH_HS256_SECRET"], "https://the-new-issuer.example")))
	}
	if s := share(authorizeLines(t, env, outage...)); s <= threshold {
		t.Errorf("%d clients refused for their issuer: share %v, not over %v: the outage would not page", minimum, s, threshold)
	}
}

// alarm is what TestStrangersCannotPageTokensRefused reads of an alarm of
// template.yaml.
type alarm struct {
	Threshold          float64 `yaml:"Threshold"`
	ComparisonOperator string  `yaml:"ComparisonOperator"`
	Metrics            []struct {
		ID         string `yaml:"Id"`
		Expression string `yaml:"Expression"`
		MetricStat struct {
			Metric struct {
				MetricName string `yaml:"MetricName"`
			} `yaml:"Metric"`
		} `yaml:"MetricStat"`
	} `yaml:"Metrics"`
}

// tokensRefusedAlarm reads TokensRefusedAlarm's properties from
// template.yaml; the fields read are literals there (a !Ref or !Sub in one
// of them fails the decode).
func tokensRefusedAlarm(t *testing.T) alarm {
	t.Helper()
	raw, err := os.ReadFile(srctree.Path("template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Resources struct {
			TokensRefusedAlarm struct {
				Properties alarm `yaml:"Properties"`
			} `yaml:"TokensRefusedAlarm"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("template.yaml: %v", err)
	}
	return doc.Resources.TokensRefusedAlarm.Properties
}
