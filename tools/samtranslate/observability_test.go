package samtranslate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/plantstore/plantstore/internal/srctree"
	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

const customNS = "PlantStore/${AWS::StackName}"

// emitted is every metric the functions write (the emf.Metric literals of
// functions/, each under the dimension sets of its emf.Attrs call) and every
// metric a MetricFilter of the template makes: metric name -> dimension sets.
// The bootstrap tests (createplant and authorizer TestMetricsThroughTheBootstrap)
// hold that the lines really carry them.
func emitted(t *testing.T, tpl *samtemplate.Template) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	// Each directive is written as one emf.Directive literal.
	lit := regexp.MustCompile(`emf\.Directive\{Dimensions: \[\]\[\]string\{(.*?)\}, Metrics: \[\]string\{(.*?)\}\}`)
	err := filepath.WalkDir(srctree.Path("functions"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range lit.FindAllStringSubmatch(string(b), -1) {
			var dimSets []string
			for _, set := range regexp.MustCompile(`\{([^}]*)\}`).FindAllStringSubmatch(m[1], -1) {
				dimSets = append(dimSets, strings.ReplaceAll(strings.ReplaceAll(set[1], `"`, ""), " ", ""))
			}
			for _, name := range strings.Split(m[2], ",") {
				name = strings.Trim(strings.TrimSpace(name), `"`)
				out[name] = append(out[name], dimSets...)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range tpl.Resources("AWS::Logs::MetricFilter") {
		for _, mt := range asSlice(tpl.Get("Resources", id, "Properties", "MetricTransformations")) {
			out[fmt.Sprint(mt.(map[string]any)["MetricName"])] = []string{""}
		}
	}
	return out
}

// awsMetrics are the AWS metrics the alarms and the dashboard may name, with
// the dimensions each is published with (API Gateway: "Amazon API Gateway
// dimensions and metrics"; Lambda: "Types of metrics for Lambda functions";
// DynamoDB: "DynamoDB Metrics and dimensions").
var awsMetrics = map[string][]string{
	"AWS/ApiGateway/5XXError": {"ApiName,Stage"}, "AWS/ApiGateway/4XXError": {"ApiName,Stage"}, "AWS/ApiGateway/Count": {"ApiName,Stage"},
	"AWS/ApiGateway/Latency": {"ApiName,Stage"}, "AWS/ApiGateway/IntegrationLatency": {"ApiName,Stage"},
	"AWS/Lambda/Errors": {"FunctionName", "FunctionName,Resource"}, "AWS/Lambda/Throttles": {"FunctionName", "FunctionName,Resource"},
	"AWS/Lambda/Duration": {"FunctionName", "FunctionName,Resource"}, "AWS/Lambda/ConcurrentExecutions": {"FunctionName"},
	"AWS/DynamoDB/ConsumedWriteCapacityUnits": {"TableName"}, "AWS/DynamoDB/WriteThrottleEvents": {"TableName"},
	"AWS/DynamoDB/SystemErrors": {"TableName,Operation"},
}

// exists reports why ns/name with dims is not a metric anyone publishes, or "".
func exists(ns, name string, dims []string, own map[string][]string) string {
	key := strings.Join(dims, ",")
	switch {
	case ns == customNS:
		sets, ok := own[name]
		if !ok {
			return "no function emits it and no filter makes it"
		}
		if !slices.Contains(sets, key) {
			return fmt.Sprintf("it is published with the dimensions %q, not %q", sets, key)
		}
	case strings.HasPrefix(ns, "AWS/"):
		sets, ok := awsMetrics[ns+"/"+name]
		if !ok || !slices.Contains(sets, key) {
			return fmt.Sprintf("not an AWS metric with the dimensions %q", key)
		}
	default:
		return "unknown namespace"
	}
	return ""
}

func namespaceOf(v any) string {
	if m, ok := v.(map[string]any); ok {
		return fmt.Sprint(m["Fn::Sub"])
	}
	return fmt.Sprint(v)
}

// Every metric an alarm watches is one the code emits, a filter makes, or
// an AWS metric with the dimensions it has.
func TestAlarmsWatchMetricsThatExist(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	own := emitted(t, tpl)
	if len(own) < 8 {
		t.Fatalf("found %d emitted metrics: %v", len(own), own)
	}
	for _, id := range tpl.Resources("AWS::CloudWatch::Alarm") {
		p := tpl.Map("Resources", id, "Properties")
		metrics := []map[string]any{}
		if _, ok := p["MetricName"]; ok {
			metrics = append(metrics, p)
		}
		for _, m := range asSlice(p["Metrics"]) {
			if ms, ok := m.(map[string]any)["MetricStat"].(map[string]any); ok {
				metrics = append(metrics, ms["Metric"].(map[string]any))
			}
		}
		if len(metrics) == 0 {
			t.Errorf("%s watches no metric", id)
		}
		for _, m := range metrics {
			var dims []string
			for _, d := range asSlice(m["Dimensions"]) {
				dims = append(dims, fmt.Sprint(d.(map[string]any)["Name"]))
			}
			if why := exists(namespaceOf(m["Namespace"]), fmt.Sprint(m["MetricName"]), dims, own); why != "" {
				t.Errorf("alarm %s watches %s %s %v: %s", id, namespaceOf(m["Namespace"]), m["MetricName"], dims, why)
			}
		}
	}
}

// The dashboard names only metrics that exist, shows every custom metric,
// and its alarm widget lists every alarm of the template.
func TestDashboard(t *testing.T) {
	t.Parallel()
	tpl, err := samtemplate.Load(templatePath)
	if err != nil {
		t.Fatal(err)
	}
	own := emitted(t, tpl)
	sub := asSlice(tpl.Get("Resources", "Dashboard", "Properties", "DashboardBody", "Fn::Sub"))
	if len(sub) != 2 {
		t.Fatalf("DashboardBody is not !Sub [body, vars]")
	}
	body := regexp.MustCompile(`\$\{([A-Za-z:.]+)\}`).ReplaceAllStringFunc(sub[0].(string), func(v string) string {
		switch v {
		case "${Namespace}":
			return customNS
		case "${AWS::Region}":
			return "us-east-1"
		}
		return strings.Trim(v, "${}")
	})
	var doc struct {
		Widgets []struct {
			Type       string
			Properties struct {
				Metrics [][]any
				Alarms  []string
			}
		}
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatalf("DashboardBody is not JSON: %v\n%s", err, body)
	}
	// The search expression syntax (CloudWatch user guide, "CloudWatch
	// search expression syntax"): a namespace or dimension with characters
	// other than letters, digits and underscores goes in double quotes.
	search := regexp.MustCompile(`SEARCH\('\{("[^"]+"|[^,]+),([^}]*)\} MetricName="(\w+)"'`)
	bare := regexp.MustCompile(`^[A-Za-z0-9_]+$`)
	shown := map[string]bool{}
	var alarms []string
	for _, w := range doc.Widgets {
		alarms = append(alarms, w.Properties.Alarms...)
		for _, m := range w.Properties.Metrics {
			if e, ok := m[0].(map[string]any); ok {
				s := search.FindStringSubmatch(fmt.Sprint(e["expression"]))
				if s == nil {
					t.Errorf("an expression that is not a SEARCH of one metric: %v", e)
					continue
				}
				if !strings.HasPrefix(s[1], `"`) && !bare.MatchString(s[1]) {
					t.Errorf("the dashboard searches the namespace %s unquoted; SEARCH needs it in double quotes", s[1])
				}
				s[1] = strings.Trim(s[1], `"`)
				if why := exists(s[1], s[3], strings.Split(s[2], ","), own); why != "" {
					t.Errorf("the dashboard searches %s %s by %s: %s", s[1], s[3], s[2], why)
				}
				shown[s[3]] = true
				continue
			}
			var dims []string
			for i := 2; i+1 < len(m); i += 2 {
				if k, ok := m[i].(string); ok {
					dims = append(dims, k)
				}
			}
			ns, name := fmt.Sprint(m[0]), fmt.Sprint(m[1])
			if why := exists(ns, name, dims, own); why != "" {
				t.Errorf("the dashboard shows %s %s %v: %s", ns, name, dims, why)
			}
			shown[name] = true
		}
	}
	for name := range own {
		if !shown[name] && name != "AuthorizerErrorLogs" && name != "RefusedTokens" {
			t.Errorf("the dashboard does not show %s", name)
		}
	}
	for _, want := range []string{"Latency", "IntegrationLatency", "Duration", "CreatePlantInitDuration", "Errors", "Throttles", "ConcurrentExecutions", "ConsumedWriteCapacityUnits", "WriteThrottleEvents"} {
		if !shown[want] {
			t.Errorf("the dashboard does not show %s", want)
		}
	}
	var want []string
	for _, id := range tpl.Resources("AWS::CloudWatch::Alarm") {
		want = append(want, id+".Arn")
	}
	slices.Sort(alarms)
	if !slices.Equal(alarms, want) {
		t.Errorf("the alarm widget shows %v, want every alarm %v", alarms, want)
	}
	if out := fmt.Sprint(tpl.Get("Outputs", "DashboardUrl", "Value")); !strings.Contains(out, "dashboards:name=${Dashboard}") {
		t.Errorf("DashboardUrl output = %s", out)
	}
}
