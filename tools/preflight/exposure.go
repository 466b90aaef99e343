package preflight

// The exposure rules: what a deployment exposes or forgets, decided by
// outcome on each variant's stack (what reaches a log, where the
// authorizer's keys come from, what evidence an incident will find), not by
// the spelling of a few examples. Three rules:
//
//   - ruleNoSecretInLogs: nothing a request carries as a secret reaches a
//     log (access logs, execution logs, WAF logs) (that the stack's logs
//     stay in its account is PS-EXP-002, rules/exposure/logs_stay.rego);
//   - ruleKeySource: the authorizer's keys are its issuer's own, under the
//     issuer's https URL;
//   - ruleEvidence: the evidence an incident needs (log level, alarms and
//     their actions, access logs, traces) is at least the floor
//     docs/deploy.md ("What an incident needs") names, in every environment
//     (retention is PS-EXP-005, rules/exposure/log_retention.rego, with the
//     floor retentionFloorDays handed in as input.evidence_floor).
//
// Access logs and the alarm topic are off in the environments as they
// stand, so each variant is also asked as it would be with both on (its
// probe): the floor holds for what a deployer switches on too.

import (
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/plantstore/plantstore/internal/logging"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// The rules as findings name them.
const (
	ruleNoSecretInLogs = "the rule: no secret a request carries reaches a log (docs/security.md)"
	ruleKeySource      = "the rule: the authorizer's keys are its issuer's own, under the issuer's https URL (docs/security.md)"
	ruleEvidence       = `the rule: the evidence an incident needs stays at the floor of docs/deploy.md ("What an incident needs")`
)

// The floor of the evidence, as docs/deploy.md's table "What an incident
// needs" states it (TestDeployDocStatesTheEvidenceFloor holds the two
// equal).
const (
	// retentionFloorDays is the fewest days a log group keeps its events.
	// CloudWatch Logs keeps them forever when RetentionInDays is absent
	// (AWS::Logs::LogGroup, RetentionInDays).
	retentionFloorDays = 7
	// logLevelFloor is the least detail the functions log at: the line of
	// each request and of each token decision are info lines.
	logLevelFloor = slog.LevelInfo
)

// accessLogFloor are the variables every access log format keeps: a
// request followed from the client (its address) through the gateway to
// the function (docs/deploy.md, "Watching it"). API Gateway: the format
// "must include at least $context.requestId or $context.extendedRequestId.
// As a best practice, include both" (developer guide, "Set up CloudWatch
// logging for REST APIs in API Gateway").
var accessLogFloor = []string{"$context.requestId", "$context.extendedRequestId", "$context.integration.requestId", "$context.identity.sourceIp", "$context.status"}

// The parameters the probe sets: ApiAccessLogs turns the stage's access
// logs on, AlarmTopicArn gives the alarms a topic.
const (
	accessLogsParam = "ApiAccessLogs"
	alarmTopicParam = "AlarmTopicArn"
)

// exposure is one resource's share of a finding: findings that say the same
// are told once, naming every resource, in the app stack and its probe.
type exposure struct{ id, rule, fix string }

// ExposureFindings applies the exposure rules to a variant: its stack and
// its probe.
func ExposureFindings(e env) []Finding {
	probe, err := evidenceProbe(e)
	if err != nil {
		return []Finding{{ID: idEvidence, Where: "Parameters", Rule: fmt.Sprintf("the stack with %s on and an %s cannot be resolved: %v", accessLogsParam, alarmTopicParam, err)}}
	}
	var all []exposure
	for _, r := range []*samtemplate.Resolved{e.app, probe} {
		all = append(all, logSecrets(r)...)
		all = append(all, keySources(r)...)
		all = append(all, logLevels(r)...)
		all = append(all, traces(r)...)
	}
	all = append(all, alarms(e, probe)...)
	all = append(all, accessLogs(probe)...)
	return groupExposures(all)
}

// evidenceProbe is the variant's stack with access logs on and an alarm
// topic of its account, where the variant has neither.
func evidenceProbe(e env) (*samtemplate.Resolved, error) {
	doc, err := translate(filepath.Join(e.root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	s := e.app.Stack()
	params := map[string]string{}
	for k, v := range s.Params {
		params[k] = v
	}
	declared, _ := doc["Parameters"].(map[string]any)
	if _, ok := declared[accessLogsParam]; ok && paramValue(e.app, accessLogsParam) == "off" {
		params[accessLogsParam] = "use-account-role"
	}
	if _, ok := declared[alarmTopicParam]; ok && paramValue(e.app, alarmTopicParam) == "" {
		params[alarmTopicParam] = probeTopic(s)
	}
	s.Params = params
	return samtemplate.Resolve(doc, s)
}

// probeTopic is the alarm topic the probe gives: an SNS topic of the
// stack's account.
func probeTopic(s samtemplate.Stack) string {
	return fmt.Sprintf("arn:%s:sns:%s:%s:preflight-alarms", s.Partition, s.Region, s.Account)
}

// paramValue is a parameter's value in the stack.
func paramValue(r *samtemplate.Resolved, name string) string {
	v, _ := r.Value(map[string]any{"Ref": name})
	return fmt.Sprint(v)
}

// source says where a property's value comes from when it is a parameter:
// "LogRetentionDays=1 in this environment's parameters", or its default.
func source(r *samtemplate.Resolved, raw any) string {
	name := samtemplate.RefTo(raw)
	if name == "" {
		return ""
	}
	if v, ok := r.Stack().Params[name]; ok {
		return fmt.Sprintf(" (%s=%s in this environment's parameters)", name, v)
	}
	if v, err := r.Value(raw); err == nil {
		return fmt.Sprintf(" (%s, whose default is %v)", name, v)
	}
	return ""
}

// groupExposures tells each (rule, fix) once, naming its resources sorted
// (the first three and a count beyond four).
func groupExposures(all []exposure) []Finding {
	type key struct{ rule, fix string }
	var order []key
	ids := map[key][]string{}
	for _, x := range all {
		k := key{x.rule, x.fix}
		if _, ok := ids[k]; !ok {
			order = append(order, k)
		}
		if !slices.Contains(ids[k], x.id) {
			ids[k] = append(ids[k], x.id)
		}
	}
	var out []Finding
	for _, k := range order {
		list := ids[k]
		sort.Strings(list)
		where := strings.Join(list, ", ")
		if len(list) > 4 {
			where = fmt.Sprintf("%s and %d more", strings.Join(list[:3], ", "), len(list)-3)
		}
		out = append(out, Finding{ID: exposureID(k.rule), Where: where, Rule: k.rule, Fix: k.fix})
	}
	return out
}

// exposureID is the ID of the exposure rule a finding's text names.
func exposureID(rule string) string {
	switch {
	case strings.Contains(rule, ruleNoSecretInLogs):
		return idLogSecrets
	case strings.Contains(rule, ruleKeySource):
		return idKeySource
	}
	return idEvidence
}

// isTrue reads a boolean property as CloudFormation does: true or "true".
func isTrue(v any) bool { return strings.EqualFold(fmt.Sprint(v), "true") }

// A stage's logging settings, of the REST API and HTTP or WebSocket API
// resources that carry them.
type stageLogging struct {
	id          string
	format      string // the access log format; "" for none
	destination string
	dataTrace   []string // where execution logging writes full requests and responses
	tracing     any      // TracingEnabled (REST stages only)
	rest        bool
}

// stagesOf reads every stage of the stack: AWS::ApiGateway::Stage (what
// SAM makes of an Api), an AWS::ApiGateway::Deployment's StageDescription,
// and AWS::ApiGatewayV2::Stage.
func stagesOf(r *samtemplate.Resolved) []stageLogging {
	var out []stageLogging
	methodTraces := func(settings any) []string {
		var on []string
		for _, m := range asList(settings) {
			s, _ := m.(map[string]any)
			if isTrue(s["DataTraceEnabled"]) {
				on = append(on, fmt.Sprintf("%v %v", s["HttpMethod"], s["ResourcePath"]))
			}
		}
		return on
	}
	accessLog := func(st *stageLogging, v any) {
		m, _ := v.(map[string]any)
		st.format, _ = m["Format"].(string)
		st.destination = fmt.Sprint(m["DestinationArn"])
	}
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::Stage") {
		p, _ := r.Properties(id)
		st := stageLogging{id: id, rest: true, tracing: p["TracingEnabled"], dataTrace: methodTraces(p["MethodSettings"])}
		accessLog(&st, p["AccessLogSetting"])
		out = append(out, st)
	}
	for _, id := range r.ResourcesOfType("AWS::ApiGateway::Deployment") {
		p, _ := r.Properties(id)
		d, ok := p["StageDescription"].(map[string]any)
		if !ok {
			continue
		}
		st := stageLogging{id: id, rest: true, tracing: d["TracingEnabled"], dataTrace: methodTraces(d["MethodSettings"])}
		if isTrue(d["DataTraceEnabled"]) {
			st.dataTrace = append(st.dataTrace, "* /*")
		}
		accessLog(&st, d["AccessLogSetting"])
		out = append(out, st)
	}
	for _, id := range r.ResourcesOfType("AWS::ApiGatewayV2::Stage") {
		p, _ := r.Properties(id)
		st := stageLogging{id: id}
		if d, _ := p["DefaultRouteSettings"].(map[string]any); isTrue(d["DataTraceEnabled"]) {
			st.dataTrace = append(st.dataTrace, "every route")
		}
		routes, _ := p["RouteSettings"].(map[string]any)
		for name, v := range routes {
			if m, _ := v.(map[string]any); isTrue(m["DataTraceEnabled"]) {
				st.dataTrace = append(st.dataTrace, name)
			}
		}
		accessLog(&st, p["AccessLogSettings"])
		out = append(out, st)
	}
	return out
}

// logVariable is a variable of an access log format, in any of the forms a
// template may write: $context.a.b, ${context.a.b}, $input.params('X'),
// $method.request.header.X, $request.header.x.
var logVariable = regexp.MustCompile(`\$\{?([A-Za-z_]\w*)((?:\.[\w-]+|\[[^\]]*\]|\([^)]*\))*)`)

// formatVariables are the variables of a format, with those inside
// another's arguments ($util.escapeJavaScript($input.body)): each match is
// the variable as written, its root and the rest.
func formatVariables(format string) [][]string {
	var out [][]string
	for _, m := range logVariable.FindAllStringSubmatch(format, -1) {
		out = append(out, m)
		out = append(out, formatVariables(m[2])...)
	}
	return out
}

// gatewayAuthorizerFields are the $context.authorizer variables that are
// API Gateway's own record of the authorizer (its principal, status,
// latency, error and request id), not a value the token carries (developer
// guide, "Variables for access logging for API Gateway").
var gatewayAuthorizerFields = map[string]bool{
	"principalid": true, "status": true, "latency": true, "error": true, "integrationlatency": true, "integrationstatus": true, "requestid": true,
}

// authorizerContext are the keys of the context that functions/authorizer
// returns (policy: the verified subject, which is principalId again).
var authorizerContext = map[string]bool{"sub": true}

// loggedSecret says which secret a variable of a log format carries, "" for
// none. API Gateway's access log variables are $context variables (the
// developer guide's "Variables for access logging"); $context.identity.apiKey
// is the caller's API key, $context.authorizer.claims.* the claims of a
// token and $context.authorizer.<key> "the stringified value of the
// specified key-value pair of the context map returned from an API Gateway
// Lambda authorizer function": whatever the authorizer copies there. $input,
// $method.request and $request name the request's own headers, query and
// body (mapping templates and HTTP API selection expressions). The
// variables are case-sensitive; any case is refused here, which costs
// nothing.
func loggedSecret(root, rest string) string {
	p := strings.ToLower(rest)
	switch strings.ToLower(root) {
	case "input", "method", "request":
		return "the request's own headers, query or body, the bearer token among them"
	case "context":
	default:
		return ""
	}
	switch {
	case p == ".identity.apikey":
		return "the caller's API key, a credential"
	case strings.HasPrefix(p, ".requestoverride") || strings.HasPrefix(p, ".responseoverride"):
		return "headers of the request or the answer"
	case strings.HasPrefix(p, ".authorizer.claims"):
		return "a claim of the caller's token"
	case strings.HasPrefix(p, ".authorizer."):
		key := rest[len(".authorizer."):]
		if gatewayAuthorizerFields[strings.ToLower(key)] || authorizerContext[key] {
			return ""
		}
		return "a key of the Lambda authorizer's context, whatever the authorizer copies there from the token (functions/authorizer returns only sub)"
	}
	return ""
}

// logSecrets: no access log format names a variable that carries a secret,
// and no execution logging writes full requests and responses. API Gateway's
// execution log "redacts authorization headers, API key values, and similar
// sensitive request parameters" (developer guide, "Set up CloudWatch
// logging for REST APIs"), but DataTraceEnabled (full request and response
// logs) "can result in logging sensitive data. We recommend that you don't
// enable this option for production APIs" (API reference, MethodSetting).
// AWS WAF's logs hold every header of a request (developer guide, "Log
// fields for web ACL traffic": httpRequest.headers) unless the logging
// configuration's RedactedFields names it (SingleHeader, whose name "isn't
// case sensitive").
func logSecrets(r *samtemplate.Resolved) []exposure {
	var out []exposure
	for _, st := range stagesOf(r) {
		for _, m := range formatVariables(st.format) {
			if what := loggedSecret(m[1], m[2]); what != "" {
				out = append(out, exposure{st.id,
					fmt.Sprintf("the access log format names %s, %s: it would reach the access log; %s", m[0], what, ruleNoSecretInLogs),
					"log only the gateway's own $context facts (the caller is $context.authorizer.principalId)"})
			}
		}
		if len(st.dataTrace) > 0 {
			out = append(out, exposure{st.id,
				fmt.Sprintf("turns on full request and response logs (DataTraceEnabled, %s): API Gateway writes request and response bodies and the authorizer's data into its execution log, "+
					"which AWS warns can log sensitive data; %s", strings.Join(st.dataTrace, ", "), ruleNoSecretInLogs),
				"leave DataTraceEnabled off (execution logging at ERROR or INFO alone redacts the Authorization header); for a 502, read the access log's $context.integration fields and the function's log"})
		}
	}
	for _, id := range r.ResourcesOfType("AWS::WAFv2::LoggingConfiguration") {
		p, _ := r.Properties(id)
		redacted := false
		for _, f := range asList(p["RedactedFields"]) {
			m, _ := f.(map[string]any)
			h, _ := m["SingleHeader"].(map[string]any)
			redacted = redacted || strings.EqualFold(fmt.Sprint(h["Name"]), "authorization")
		}
		if !redacted {
			out = append(out, exposure{id,
				"logs the web ACL's requests without redacting the Authorization header: AWS WAF logs every header of a request, the bearer token among them; " + ruleNoSecretInLogs,
				"add RedactedFields: [{SingleHeader: {Name: authorization}}]"})
		}
	}
	return out
}

// keySources: every function that is told a JWKS URL (AUTH_JWKS_URL,
// internal/auth's one key source for a deployed stack) is told its issuer's
// own. OpenID Connect Discovery 1.0, section 3: the issuer is "a URL that
// uses the https scheme with no query or fragment components" and its keys
// are published at its jwks_uri; Amazon Cognito's at
// https://cognito-idp.<region>.amazonaws.com/<user pool id>/.well-known/jwks.json
// (developer guide, "Verifying a JSON web token"). RFC 8725 (JWT BCP),
// section 3.10: a key URL from anywhere else risks keys of whoever controls
// it, so a JWKS URL must lie under the issuer's URL: the same https origin,
// and within the issuer's path, which on a host that serves many issuers
// (Cognito's serves every user pool of the region) is the issuer itself.
// An issuer whose keys live on another host (Google's, Microsoft Entra's
// common endpoint) is refused with the rest: such a change of this rule is
// made on purpose, with a review.
func keySources(r *samtemplate.Resolved) []exposure {
	var out []exposure
	for _, id := range r.ResourcesOfType("AWS::Lambda::Function") {
		p, err := r.Properties(id)
		if err != nil {
			out = append(out, exposure{id, "cannot be resolved: " + err.Error(), ""})
			continue
		}
		env, _ := p["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		jwks, ok := vars["AUTH_JWKS_URL"]
		if !ok {
			continue
		}
		issuer := fmt.Sprint(vars["AUTH_ISSUER"])
		if vars["AUTH_ISSUER"] == nil {
			issuer = ""
		}
		if why := keySourceRefused(issuer, fmt.Sprint(jwks)); why != "" {
			out = append(out, exposure{id,
				fmt.Sprintf("AUTH_JWKS_URL %s %s; %s", jwks, why, ruleKeySource),
				"derive AUTH_JWKS_URL from AUTH_ISSUER: the jwks_uri under the issuer's URL (…/.well-known/jwks.json), for Cognito the user pool's own"})
		}
	}
	return out
}

// keySourceRefused says why a JWKS URL is not its issuer's own; "" when it
// is, or when there is none.
func keySourceRefused(issuer, jwks string) string {
	if jwks == "" {
		return ""
	}
	if strings.HasPrefix(jwks, "{{resolve:") {
		return "is a dynamic reference: the keys come from whatever that parameter holds at deploy time, which no review of the template sees"
	}
	u, err := url.Parse(jwks)
	switch {
	case err != nil || u.Host == "":
		return "is not a URL"
	case u.Scheme != "https":
		return fmt.Sprintf("is %s, not https: anyone on the path to it can hand the authorizer keys and mint tokens it accepts", u.Scheme)
	case u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.RawPath != "" || u.Path != path.Clean(u.Path):
		return "carries user information, a query, a fragment, escapes or dot segments: it may lead elsewhere than it reads, to keys of whoever answers there"
	}
	is, err := url.Parse(issuer)
	switch {
	case issuer == "":
		return "has no issuer (AUTH_ISSUER) to be derived from"
	case err != nil || is.Scheme != "https" || is.Host == "" || is.RawQuery != "" || is.Fragment != "":
		return fmt.Sprintf("belongs to the issuer %q, which is no https URL without query or fragment", issuer)
	case !strings.EqualFold(hostPort(u), hostPort(is)):
		return fmt.Sprintf("is on host %s, not the issuer's %s: whoever controls that host hands the authorizer keys and mints tokens it accepts", u.Host, is.Host)
	}
	base := strings.TrimSuffix(is.Path, "/") + "/"
	if !strings.HasPrefix(u.Path, base) {
		return fmt.Sprintf("lies outside the issuer's path %s: on a host that serves many issuers (Cognito's serves every user pool of the region) these are another issuer's keys, "+
			"and whoever that issuer signs for gets tokens the authorizer accepts", strings.TrimSuffix(base, "/"))
	}
	return ""
}

// hostPort is a URL's host with its port, 443 when none is given.
func hostPort(u *url.URL) string {
	if u.Port() == "" {
		return u.Hostname() + ":443"
	}
	return u.Host
}

// Lambda's log-level filters, most detailed first (Lambda API reference,
// LoggingConfig: Lambda "only sends application logs at the selected level
// of detail and lower"; system logs likewise).
var (
	applicationLevels = []string{"TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL"}
	systemLevels      = []string{"DEBUG", "INFO", "WARN"}
)

// logLevels: every function logs at logLevelFloor or more detail: its
// LOG_LEVEL (read by internal/logging, as the functions read it) and
// Lambda's ApplicationLogLevel and SystemLogLevel filters (the REPORT
// lines, which the init-duration metric filters read, are system logs).
func logLevels(r *samtemplate.Resolved) []exposure {
	var out []exposure
	const fix = "leave LOG_LEVEL at info and Lambda's log-level filters at INFO or unset in every environment; cut cost with retention above the floor, not with the lines"
	above := func(levels []string, v any) bool {
		s := strings.ToUpper(fmt.Sprint(v))
		for i, l := range levels {
			if l == s {
				return i > slices.Index(levels, "INFO")
			}
		}
		return false
	}
	for _, id := range r.ResourcesOfType("AWS::Lambda::Function") {
		p, _ := r.Properties(id)
		env, _ := p["Environment"].(map[string]any)
		vars, _ := env["Variables"].(map[string]any)
		raw, _ := rawProperties(r, id)["Environment"].(map[string]any)
		rawVars, _ := raw["Variables"].(map[string]any)
		if v, ok := vars["LOG_LEVEL"]; ok {
			if l, err := logging.ParseLevel(fmt.Sprint(v)); err == nil && l > logLevelFloor {
				out = append(out, exposure{id,
					fmt.Sprintf("logs at LOG_LEVEL=%v%s: the info lines an incident reads (one per request, one per token decision) are dropped; %s", v, source(r, rawVars["LOG_LEVEL"]), ruleEvidence), fix})
			}
		}
		lc, _ := p["LoggingConfig"].(map[string]any)
		if v, ok := lc["ApplicationLogLevel"]; ok && above(applicationLevels, v) {
			out = append(out, exposure{id, fmt.Sprintf("filters its application logs at %v: Lambda drops the info lines an incident reads; %s", v, ruleEvidence), fix})
		}
		if v, ok := lc["SystemLogLevel"]; ok && above(systemLevels, v) {
			out = append(out, exposure{id, fmt.Sprintf("filters its system logs at %v: Lambda drops the REPORT lines (durations, init) an incident reads; %s", v, ruleEvidence), fix})
		}
	}
	return out
}

// traces: every REST API stage traces with X-Ray (TracingEnabled), and so
// does every function that serves the plants: the integration of a route
// under /plants and every Lambda authorizer (TracingConfig Mode Active;
// PassThrough traces only what a caller asked to be sampled: Lambda API
// reference, TracingConfig). A function added beside them (docs/deploy.md's
// health check) may trace or not; the floor is what the service's one
// operation needs.
func traces(r *samtemplate.Resolved) []exposure {
	var out []exposure
	for _, st := range stagesOf(r) {
		if st.rest && !isTrue(st.tracing) {
			out = append(out, exposure{st.id, fmt.Sprintf("traces nothing with X-Ray (TracingEnabled %v): an incident's trace has no gateway; %s", st.tracing, ruleEvidence),
				"keep TracingEnabled: true on the stage in every environment"})
		}
	}
	for _, id := range servingFunctions(r) {
		p, _ := r.Properties(id)
		tc, _ := p["TracingConfig"].(map[string]any)
		if mode := fmt.Sprint(tc["Mode"]); mode != "Active" {
			out = append(out, exposure{id, fmt.Sprintf("serves the plants without active tracing (TracingConfig Mode %s): an incident's trace stops before it; %s", mode, ruleEvidence),
				"keep Tracing: Active on every function of /plants and every authorizer, in every environment"})
		}
	}
	return out
}

// servingFunctions are the logical ids of the functions that serve the
// plants: the integration of a route under /plants or a Lambda authorizer,
// sorted.
func servingFunctions(r *samtemplate.Resolved) []string {
	fns := stackFunctions(r)
	var out []string
	add := func(fn string) {
		if id := fns[fn]; id != "" && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	apis, _ := restAPIsOf(r)
	for _, api := range apis {
		for _, rt := range api.routes {
			if rt.path == "/plants" || strings.HasPrefix(rt.path, "/plants/") {
				add(rt.function)
			}
		}
		for fn := range api.authorizers {
			add(fn)
		}
	}
	sort.Strings(out)
	return out
}

// alarms: every alarm of the template exists in the variant, acts
// (ActionsEnabled, default true: CloudWatch API reference, PutMetricAlarm)
// and, when an AlarmTopicArn is given, sends its alarm to it.
func alarms(e env, probe *samtemplate.Resolved) []exposure {
	doc, err := translate(filepath.Join(e.root, "template.yaml"))
	if err != nil {
		return []exposure{{"template.yaml", "cannot be translated: " + err.Error(), ""}}
	}
	resources, _ := doc["Resources"].(map[string]any)
	declared, _ := doc["Parameters"].(map[string]any)
	var out []exposure
	if _, ok := declared[alarmTopicParam]; !ok {
		out = append(out, exposure{"Parameters", fmt.Sprintf("has no %s: no alarm can reach anyone; %s", alarmTopicParam, ruleEvidence),
			fmt.Sprintf("keep the parameter %s and every alarm's AlarmActions on it", alarmTopicParam)})
	}
	topic := paramValue(probe, alarmTopicParam)
	ids := make([]string, 0, len(resources))
	for id := range resources {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		res, _ := resources[id].(map[string]any)
		if typ := res["Type"]; typ != "AWS::CloudWatch::Alarm" && typ != "AWS::CloudWatch::CompositeAlarm" {
			continue
		}
		for _, r := range []*samtemplate.Resolved{e.app, probe} {
			if !r.Exists(id) {
				out = append(out, exposure{id, fmt.Sprintf("is not created in this environment (its condition %v is false): nothing watches what it watches; %s", res["Condition"], ruleEvidence),
					"create every alarm in every environment"})
				continue
			}
			p, _ := r.Properties(id)
			if a, ok := p["ActionsEnabled"]; ok && !isTrue(a) {
				out = append(out, exposure{id, fmt.Sprintf("ActionsEnabled is false%s: the alarm changes state and tells nobody; %s", source(r, rawProperties(r, id)["ActionsEnabled"]), ruleEvidence),
					"leave ActionsEnabled unset (true) in every environment"})
			}
		}
		if probe.Exists(id) && topic != "" {
			p, _ := probe.Properties(id)
			if !slices.Contains(stringsOf(p["AlarmActions"]), topic) {
				actions := "unset"
				if p["AlarmActions"] != nil {
					actions = oneLineJSON(p["AlarmActions"], 80)
				}
				out = append(out, exposure{id, fmt.Sprintf("does not send to %s when one is given (AlarmActions %s): the alarm pages nobody; %s", alarmTopicParam, actions, ruleEvidence),
					fmt.Sprintf("AlarmActions: !If [HasAlarmTopic, [!Ref %s], !Ref AWS::NoValue]", alarmTopicParam)})
			}
		}
	}
	return out
}

func stringsOf(v any) []string {
	var out []string
	for _, e := range asList(v) {
		out = append(out, fmt.Sprint(e))
	}
	return out
}

// accessLogs: with access logs on (the probe), every REST API stage writes
// them to a log group of the stack (whose retention the floor holds) with
// every accessLogFloor variable, as written (they are case-sensitive).
func accessLogs(probe *samtemplate.Resolved) []exposure {
	var out []exposure
	groups := map[string]bool{}
	for _, id := range probe.ResourcesOfType("AWS::Logs::LogGroup") {
		arn, _ := probe.Value(map[string]any{"Fn::GetAtt": []any{id, "Arn"}})
		groups[strings.TrimSuffix(fmt.Sprint(arn), ":*")] = true
	}
	for _, st := range stagesOf(probe) {
		if !st.rest {
			continue
		}
		if st.format == "" {
			out = append(out, exposure{st.id, fmt.Sprintf("writes no access log with %s on: no request can be followed through the gateway; %s", accessLogsParam, ruleEvidence),
				"keep the stage's AccessLogSetting wherever ApiAccessLogs is not off"})
			continue
		}
		if !groups[strings.TrimSuffix(st.destination, ":*")] {
			out = append(out, exposure{st.id, fmt.Sprintf("writes its access log to %s, no log group of this stack: no retention of this stack holds it; %s", st.destination, ruleEvidence),
				"send the access log to the stack's ApiAccessLogGroup"})
		}
		present := map[string]bool{}
		for _, m := range formatVariables(st.format) {
			present["$"+m[1]+m[2]] = true
		}
		var missing []string
		for _, f := range accessLogFloor {
			if !present[f] {
				missing = append(missing, f)
			}
		}
		if len(missing) > 0 {
			out = append(out, exposure{st.id, fmt.Sprintf("the access log format lacks %s: a request cannot be followed from the client to the function; %s", strings.Join(missing, ", "), ruleEvidence),
				"keep " + strings.Join(accessLogFloor, ", ") + " in the format"})
		}
	}
	return out
}
