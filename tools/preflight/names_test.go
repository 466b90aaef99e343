package preflight

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// maxStackName is the longest stack name whose names all fit: the hook's
// FunctionName is CodeDeployHook_<stack>_pretraffic (SAM's rule for a
// PreTraffic hook's name) and Lambda takes a function name of at most 64
// characters, so 64 - len("CodeDeployHook_") - len("_pretraffic") = 38.
// docs/deploy.md states it.
const maxStackName = 38

// nameLimits are the longest names AWS's APIs take for the names the template
// sets (CloudFormation generates, and truncates to fit, every other name):
// Lambda CreateFunction FunctionName 64 ("If you specify only the function
// name, it is limited to 64 characters in length"); CloudWatch Logs
// CreateLogGroup logGroupName 512 and PutQueryDefinition name 255;
// CloudWatch PutDashboard DashboardName 255 and PutMetricAlarm AlarmName 255;
// WAFv2 CreateWebACL Name 128; DynamoDB CreateTable TableName 255; IAM
// CreateRole RoleName 64; CodeDeploy CreateApplication applicationName 100;
// Cognito CreateUserPoolDomain Domain 63; API Gateway's RestApi Name has no
// stated limit and is not listed.
var nameLimits = map[string]struct {
	property string
	max      int
}{
	"AWS::Lambda::Function":        {"FunctionName", 64},
	"AWS::Logs::LogGroup":          {"LogGroupName", 512},
	"AWS::Logs::QueryDefinition":   {"Name", 255},
	"AWS::CloudWatch::Dashboard":   {"DashboardName", 255},
	"AWS::CloudWatch::Alarm":       {"AlarmName", 255},
	"AWS::WAFv2::WebACL":           {"Name", 128},
	"AWS::DynamoDB::Table":         {"TableName", 255},
	"AWS::IAM::Role":               {"RoleName", 64},
	"AWS::CodeDeploy::Application": {"ApplicationName", 100},
	"AWS::Cognito::UserPoolDomain": {"Domain", 63},
}

// tooLong lists the names the template sets that exceed AWS's limits for a
// stack of the given name, with every feature on.
func tooLong(t *testing.T, stack string) []string {
	t.Helper()
	doc, err := translated()
	if err != nil {
		t.Fatal(err)
	}
	app, err := samtemplate.Resolve(doc, samtemplate.Stack{Name: stack, Region: region, Account: account, Partition: partition, Params: map[string]string{
		"EnableWaf": "true", "DomainName": "api.example.com", "HostedZoneId": "Z0EXAMPLE",
		"CertificateArn": "arn:aws:acm:eu-west-1:123456789012:certificate/example", "ApiAccessLogs": "set-account-role",
	}})
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	named := 0
	for typ, limit := range nameLimits {
		for _, id := range app.ResourcesOfType(typ) {
			p, err := app.Properties(id)
			if err != nil {
				t.Fatal(err)
			}
			name, ok := p[limit.property].(string)
			if !ok {
				continue
			}
			named++
			if len(name) > limit.max {
				long = append(long, fmt.Sprintf("%s %s %q is %d characters, over %d", id, limit.property, name, len(name), limit.max))
			}
		}
	}
	if named < 5 {
		t.Fatalf("only %d named resources found; has the template stopped naming them?", named)
	}
	return long
}

// Every name the template builds from the stack's name fits AWS's limits
// for stack names up to maxStackName, and the bound is tight: one more
// character breaks the hook's name, so the documented limit is the real one.
// samconfig.toml's stacks keep within it.
func TestStackNamesUpToTheDocumentedLimitFit(t *testing.T) {
	t.Parallel()
	if long := tooLong(t, strings.Repeat("s", maxStackName)); len(long) > 0 {
		t.Errorf("a %d-character stack name makes names AWS refuses:\n%s", maxStackName, strings.Join(long, "\n"))
	}
	if long := tooLong(t, strings.Repeat("s", maxStackName+1)); len(long) == 0 {
		t.Errorf("a %d-character stack name still fits: the limit in docs/deploy.md (%d) is not the real one", maxStackName+1, maxStackName)
	}
	for _, env := range []string{"default", "dev", "prod"} {
		if stack, _ := deployConfig(t, env); len(stack) > maxStackName {
			t.Errorf("samconfig.toml's %s stack %q is longer than %d characters", env, stack, maxStackName)
		}
	}
	raw, err := os.ReadFile(filepath.Join(repoRoot, "docs", "deploy.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`stack names? (?:of )?at most (\d+) characters`).FindStringSubmatch(string(raw))
	if m == nil {
		t.Fatal(`docs/deploy.md does not state the limit ("stack names of at most N characters")`)
	}
	if n, _ := strconv.Atoi(m[1]); n != maxStackName {
		t.Errorf("docs/deploy.md says stack names of at most %d characters; the names fit up to %d", n, maxStackName)
	}
}
