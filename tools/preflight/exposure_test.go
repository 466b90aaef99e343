package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// exposureCase is one edit a teammate could make, with its motive in a
// comment beside each part: the findings of the book it must give, and
// the lines other rules give for the same edit (also), so that the edit is
// refused by one line of its own and nothing is left unexplained.
type exposureCase struct {
	name  string
	edits []edit
	want  []struct{ id, where, says string }
	also  []string
}

// The parameter overrides of dev and prod in samconfig.toml, which an edit
// extends.
const (
	devOverrides  = `PermissionsBoundaryPolicy=plant-store-dev-boundary"`
	prodOverrides = `PermissionsBoundaryPolicy=plant-store-prod-boundary"`
)

// The lines the stateful rule gives when dev leaves the Cognito user pool
// for another issuer: true, and not this rule's.
var devLeavesCognito = []string{"UserPool [dev]: the AWS::Cognito::UserPool is gone", "UserPoolClient [dev]: the AWS::Cognito::UserPoolClient is gone"}

// Edits that would put a request's secrets into a log, take the
// authorizer's keys from elsewhere than its issuer, or turn the evidence an
// incident needs below docs/deploy.md's floor in one environment, each
// refused by one line naming the danger, the rule and the fix; and edits
// that keep all three, which pass. Edits of different resources share a
// mutant (one SAM translation in Python each), and each is still
// told apart by its own line; a mutant of samconfig.toml alone reuses the
// template's cached translation.
func TestExposureRulesCatchDangerousEdits(t *testing.T) {
	t.Parallel()
	skipMutantsInShort(t)
	type want = struct{ id, where, says string }
	cases := []exposureCase{
		{name: "secrets into logs, keys over http and from a parameter store",
			edits: []edit{
				// "Turn on full request logging in dev to debug a 502."
				{"template.yaml", "", "  DeploymentType:\n    Type: String\n", "  ApiDataTrace:\n    Type: String\n    Default: 'false'\n    AllowedValues: ['true', 'false']\n" +
					"    Description: Full request and response logs of the stage, to debug an integration.\n\n  DeploymentType:\n    Type: String\n"},
				{"template.yaml", "  PlantsApi:", "          MetricsEnabled: true\n", "          MetricsEnabled: true\n          LoggingLevel: INFO\n          DataTraceEnabled: !Ref ApiDataTrace\n"},
				{"samconfig.toml", "", devOverrides, strings.TrimSuffix(devOverrides, `"`) + ` ApiDataTrace=true"`},
				// "See the exact header a partner sends when the authorizer
				// refuses it."
				{"template.yaml", "AccessLogSetting:", `"principal":"$context.authorizer.principalId",`,
					`"principal":"$context.authorizer.principalId","authorization":"$input.params(''Authorization'')",`},
				// "Log what WAF blocks in prod, to see why a partner gets 403."
				{"template.yaml", "", "  WebAclAssociation:\n", "  WebAclLogging:\n    Type: AWS::WAFv2::LoggingConfiguration\n    Condition: WafOn\n    Properties:\n" +
					"      ResourceArn: !GetAtt WebAcl.Arn\n      LogDestinationConfigs:\n" +
					"        - !Sub arn:${AWS::Partition}:logs:${AWS::Region}:${AWS::AccountId}:log-group:aws-waf-logs-${AWS::StackName}\n\n  WebAclAssociation:\n"},
				// "The staging IdP's certificate expired: take its keys over
				// http until it is renewed."
				{"template.yaml", "", `AllowedPattern: '^(https://\S+)?$'`, `AllowedPattern: '^(https?://\S+)?$'`},
				{"samconfig.toml", "", ` ApiDataTrace=true"`, ` ApiDataTrace=true AuthIssuer=https://login.staging.plantstore.example AuthAudience=plant-store` +
					` AuthJwksUrl=http://login.staging.plantstore.example/.well-known/jwks.json"`},
				// "Let ops move the key URL without a deploy."
				{"template.yaml", "  AuthorizerFunction:", "            - !Sub https://cognito-idp.${AWS::Region}.amazonaws.com/${UserPool}/.well-known/jwks.json\n",
					"            - '{{resolve:ssm:/plantstore/jwks-url}}'\n"},
			},
			want: []want{
				{"PS-EXP-001", "PlantsApiv1Stage [dev]", "DataTraceEnabled"},
				{"PS-EXP-001", "PlantsApiv1Stage [default, dev, prod, edge]", "$input.params('Authorization')"},
				{"PS-EXP-001", "WebAclLogging [prod, edge]", "without redacting the Authorization header"},
				{"PS-EXP-003", "AuthorizerFunction [dev]", "is http, not https"},
				{"PS-EXP-003", "AuthorizerFunction [default, prod, edge]", "is a dynamic reference"},
			},
			also: devLeavesCognito},
		{name: "keys from another pool, quieter evidence in one environment, an access log that cannot follow a request",
			edits: []edit{
				// "Dev's pool is recreated on every rebuild: take the keys of
				// the team's long-lived pool."
				{"template.yaml", "  AuthorizerFunction:", "amazonaws.com/${UserPool}/.well-known/jwks.json", "amazonaws.com/eu-west-1_TeamPool1/.well-known/jwks.json"},
				// "Dev's 500s page the on-call at night: silence that alarm
				// in dev."
				{"template.yaml", "", "  AlarmTopicArn:\n", "  PageOnFailures:\n    Type: String\n    Default: 'true'\n    AllowedValues: ['true', 'false']\n" +
					"    Description: Whether FailuresAlarm acts.\n\n  AlarmTopicArn:\n"},
				{"template.yaml", "  FailuresAlarm:", "      TreatMissingData: notBreaching\n", "      TreatMissingData: notBreaching\n      ActionsEnabled: !Ref PageOnFailures\n"},
				{"samconfig.toml", "", devOverrides, strings.TrimSuffix(devOverrides, `"`) + ` PageOnFailures=false"`},
				// "TokensRefusedAlarm fires on every issuer hiccup: keep it on
				// the dashboard and page nobody."
				{"template.yaml", "  TokensRefusedAlarm:", "      AlarmActions: !If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]\n", ""},
				// "X-Ray costs money in dev: trace createplant in prod only."
				{"template.yaml", "", "  ThrottlingRateLimit:\n", "  CreatePlantTracing:\n    Type: String\n    Default: Active\n    AllowedValues: [Active, PassThrough]\n" +
					"    Description: X-Ray tracing of createplant.\n\n  ThrottlingRateLimit:\n"},
				{"template.yaml", "  CreatePlantFunction:", "      Tracing: Active\n", "      Tracing: !Ref CreatePlantTracing\n"},
				{"samconfig.toml", "", ` PageOnFailures=false"`, ` PageOnFailures=false CreatePlantTracing=PassThrough"`},
				// "Prod's per-request lines are most of the CloudWatch bill:
				// log warnings only there."
				{"template.yaml", "", "  LogRetentionDays:\n", "  LogLevel:\n    Type: String\n    Default: info\n    Description: LOG_LEVEL of createplant.\n\n  LogRetentionDays:\n"},
				{"template.yaml", "  CreatePlantFunction:", "          LOG_LEVEL: info\n", "          LOG_LEVEL: !Ref LogLevel\n"},
				{"samconfig.toml", "", prodOverrides, strings.TrimSuffix(prodOverrides, `"`) + ` LogLevel=warn"`},
				// "Tell partners apart by their usage-plan key in the access
				// log."
				{"template.yaml", "AccessLogSetting:", `"status":"$context.status",`, `"status":"$context.status","apiKey":"$context.identity.apiKey",`},
				// "Cut the access log to the fields the dashboard charts, to
				// save ingestion."
				{"template.yaml", "AccessLogSetting:", `'{"requestId":"$context.requestId","ip":"$context.identity.sourceIp",`, `'{`},
				{"template.yaml", "AccessLogSetting:", `"extendedRequestId":"$context.extendedRequestId","lambdaRequestId":"$context.integration.requestId",`, ""},
			},
			want: []want{
				{"PS-EXP-003", "AuthorizerFunction [default, dev, prod, edge]", "outside the issuer's path"},
				{"PS-EXP-007", "FailuresAlarm [dev]", "ActionsEnabled is false"},
				{"PS-EXP-007", "TokensRefusedAlarm [default, dev, prod, edge]", "does not send to AlarmTopicArn"},
				{"PS-EXP-006", "CreatePlantFunction [dev]", "without active tracing"},
				{"PS-EXP-004", "CreatePlantFunction [prod]", "LOG_LEVEL=warn"},
				{"PS-EXP-001", "PlantsApiv1Stage [default, dev, prod, edge]", "$context.identity.apiKey"},
				{"PS-EXP-008", "PlantsApiv1Stage [default, dev, prod, edge]", "lacks $context.requestId, $context.extendedRequestId, $context.integration.requestId, $context.identity.sourceIp: a request"},
			}},
		{name: "point JWKS at our staging IdP mirror",
			edits: []edit{{"samconfig.toml", "", devOverrides, strings.TrimSuffix(devOverrides, `"`) +
				` AuthIssuer=https://login.plantstore.example AuthAudience=plant-store AuthJwksUrl=https://idp-mirror.staging.plantstore.example/.well-known/jwks.json"`}},
			want: []want{{"PS-EXP-003", "AuthorizerFunction [dev]", "is on host idp-mirror.staging.plantstore.example, not the issuer's login.plantstore.example"}},
			also: devLeavesCognito},
		{name: "safe: a year of prod logs, one more alarm, the authorizer's latency logged, execution logs at ERROR",
			edits: []edit{
				// "Keep a year of prod logs for the audit."
				{"samconfig.toml", "", "LogRetentionDays=90 ", "LogRetentionDays=365 "},
				// "Page when the authorizer slows down."
				{"template.yaml", "", "  TableSystemErrorsAlarm:\n", "  AuthorizerSlowAlarm:\n    Type: AWS::CloudWatch::Alarm\n    Properties:\n" +
					"      AlarmDescription: the authorizer's p99 duration was over 1 s for 15 minutes\n      Namespace: AWS/Lambda\n      MetricName: Duration\n" +
					"      Dimensions:\n        - Name: FunctionName\n          Value: !Ref AuthorizerFunction\n      ExtendedStatistic: p99\n      Period: 300\n" +
					"      EvaluationPeriods: 3\n      Threshold: 1000\n      ComparisonOperator: GreaterThanThreshold\n      TreatMissingData: notBreaching\n" +
					"      AlarmActions: !If [HasAlarmTopic, [!Ref AlarmTopicArn], !Ref AWS::NoValue]\n\n  TableSystemErrorsAlarm:\n"},
				// "Log the authorizer's latency and the subject it hands on."
				{"template.yaml", "AccessLogSetting:", `"authorizerStatus":"$context.authorizer.status",`,
					`"authorizerStatus":"$context.authorizer.status","authorizerLatencyMs":"$context.authorizer.latency","sub":"$context.authorizer.sub",`},
				// "Execution logs for errors only, as AWS recommends."
				{"template.yaml", "  PlantsApi:", "          MetricsEnabled: true\n", "          MetricsEnabled: true\n          LoggingLevel: ERROR\n"},
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			findings := stackFindings(t, mutant(t, c.edits...))
			matched := make([]bool, len(findings))
			for _, w := range c.want {
				n := 0
				for i, f := range findings {
					if f.ID == w.id && strings.Contains(f.String(), w.where+": ") && strings.Contains(f.String(), w.says) {
						matched[i] = true
						n++
						t.Logf("caught: %s", f)
					}
				}
				if n != 1 {
					t.Errorf("%d findings %s on %s saying %q, want 1", n, w.id, w.where, w.says)
				}
			}
			for i, f := range findings {
				if matched[i] {
					continue
				}
				explained := false
				for _, a := range c.also {
					explained = explained || strings.Contains(f.String(), a)
				}
				if !explained {
					t.Errorf("unexpected finding: %s", f)
				}
			}
		})
	}
}

// docs/deploy.md's table "What an incident needs" states the floor the
// rules hold: the retention's days, the log level and the access log's
// variables.
func TestDeployDocStatesTheEvidenceFloor(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## What an incident needs\n")
	if !ok {
		t.Fatal(`docs/deploy.md has no section "## What an incident needs"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := func(name string) string {
		for _, l := range strings.Split(section, "\n") {
			if strings.HasPrefix(l, "| "+name+" |") {
				return l
			}
		}
		t.Errorf("the table has no row %q", name)
		return ""
	}
	if want := fmt.Sprintf("**%d** days", retentionFloorDays); !strings.Contains(row("log retention"), want) {
		t.Errorf("the row log retention does not say %q, the rule's floor", want)
	}
	if want := "`" + strings.ToLower(logLevelFloor.String()) + "`"; !strings.Contains(row("log level"), want) {
		t.Errorf("the row log level does not say %s, the rule's floor", want)
	}
	var fields []string
	for _, m := range regexp.MustCompile("`(\\$context\\.[A-Za-z.]+)`").FindAllStringSubmatch(row("access logs"), -1) {
		fields = append(fields, m[1])
	}
	if !slices.Equal(fields, accessLogFloor) {
		t.Errorf("the row access logs names %v; the rule keeps %v", fields, accessLogFloor)
	}
}
