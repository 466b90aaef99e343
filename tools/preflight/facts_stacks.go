package preflight

// The facts of the stacks: each variant's translated template (and, for
// dev and prod, pipeline/roles.yaml's stack), resource by resource, with
// its properties as written (raw: intrinsics kept) and as CloudFormation
// would resolve them for that variant, and the line of the resource in
// the file a person edits. The evidence probe of each variant (the app
// stack with access logs on and an alarm topic) is a stack of its own,
// with probe true: the floor of the evidence holds for what a deployer
// switches on too.

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strings"

	"github.com/plantstore/plantstore/samlocal/samtemplate"
)

// The floor of the evidence, as docs/deploy.md's table "What an incident
// needs" states it (TestDeployDocStatesTheEvidenceFloor holds the two
// equal), handed to the rules as input.evidence_floor.
const (
	// retentionFloorDays is the fewest days a log group keeps its events.
	retentionFloorDays = 7
	// logLevelFloor is the least detail the functions log at.
	logLevelFloor = slog.LevelInfo
)

// accessLogFloor are the variables every access log format keeps: a
// request followed from the client through the gateway to the function.
var accessLogFloor = []string{"$context.requestId", "$context.extendedRequestId", "$context.integration.requestId", "$context.identity.sourceIp", "$context.status"}

// evidenceFloor is input.evidence_floor.
func evidenceFloor() map[string]any {
	floor := lifetimes()
	floor["retention_days"], floor["log_level"], floor["access_log"] = retentionFloorDays, logLevelFloor.String(), accessLogFloor
	return floor
}

// The parameters the probe sets: ApiAccessLogs turns the stage's access
// logs on, AlarmTopicArn gives the alarms a topic.
const (
	accessLogsParam = "ApiAccessLogs"
	alarmTopicParam = "AlarmTopicArn"
)

// stacksFacts are the stacks of every variant, for input.stacks:
//
//	{"variant": "dev", "probe": false, "file": "template.yaml", "name": "plant-store-dev",
//	 "account": "123456789012", "region": ..., "partition": ..., "params": {...},
//	 "apis": [{"id": "PlantsApi", "ref": ..., "stages": [...], "authorizers": ["<LogicalId>"],
//	   "routes": [{"name": "POST /plants", "method": "POST", "path": "/plants", "resource": "<LogicalId>",
//	   "authorized": true, "instead": "", "function": "<LogicalId>" or ""}]}],
//	 "unread_apis": [{"id": ..., "msg": ...}], "resources": {"<LogicalId>": {"type": ..., "raw": {...},
//	 "properties": {...} or null, "ref": ..., "error": "", "source": "<id in file>", "line": n,
//	 "update_policy": {...} or null}},
//	 "absent": {"<LogicalId>": {"type": ..., "condition": ..., "line": n}}}
//
// absent are the resources the template declares but this variant does
// not create (their condition is false).
func stacksFacts(envs []env, places map[string]map[string]int) []any {
	var out []any
	for _, e := range envs {
		stacks := e.stacks()
		doc, _ := translate(filepath.Join(e.root, "template.yaml"))
		declared, _ := doc["Resources"].(map[string]any)
		probe, err := evidenceProbe(e)
		if err == nil {
			stacks = append(stacks, probe)
		}
		for _, r := range stacks {
			file := fileOf(e, r)
			resources := map[string]any{}
			for _, id := range r.ResourceIDs() {
				res, _ := r.Resource(id)
				props, err := r.Properties(id)
				problem := ""
				if err != nil {
					problem = err.Error()
				}
				ref, _ := r.Value(map[string]any{"Ref": id})
				src, line := sourceOf(places[file], id)
				resources[id] = map[string]any{"type": res["Type"], "raw": res["Properties"], "properties": props, "ref": ref,
					"error": problem, "source": src, "line": line, "update_policy": res["UpdatePolicy"]}
			}
			absent := map[string]any{}
			for id := range declared {
				if res, ok := r.Resource(id); ok && !r.Exists(id) && file == "template.yaml" {
					_, line := sourceOf(places[file], id)
					absent[id] = map[string]any{"type": res["Type"], "condition": res["Condition"], "line": line}
				}
			}
			params := map[string]any{}
			for k, v := range r.Stack().Params {
				params[k] = v
			}
			apis, unread := apisFacts(r)
			s := r.Stack()
			out = append(out, map[string]any{"variant": e.name, "probe": r == probe, "file": file, "name": s.Name, "account": s.Account,
				"region": s.Region, "partition": s.Partition, "params": params, "resources": resources, "absent": absent, "apis": apis, "unread_apis": unread})
		}
	}
	return out
}

// apisFacts are the stack's REST APIs as restAPIsOf reads them (each route,
// what guards it, the function it reaches), and what it cannot read.
func apisFacts(r *samtemplate.Resolved) ([]any, []any) {
	apis, unread := restAPIsOf(r)
	fns := stackFunctions(r)
	out := []any{}
	for _, api := range apis {
		routes, authorizers := []any{}, []any{}
		for _, rt := range api.routes {
			routes = append(routes, map[string]any{"name": rt.name(), "method": rt.method, "path": rt.path, "resource": cmp.Or(rt.resource, api.id),
				"authorized": rt.authorized, "instead": rt.instead, "function": fns[rt.function]})
		}
		for fn := range api.authorizers {
			authorizers = append(authorizers, fns[fn])
		}
		out = append(out, map[string]any{"id": api.id, "ref": api.ref, "stages": api.stages, "authorizers": authorizers, "routes": routes})
	}
	return out, unread
}

// allowlistFacts are input.allowlist: the entries of
// tools/preflight/allowlist.yaml with a reason ({"kind", "what", "reason"}),
// the exceptions a rule may take.
func allowlistFacts(a *Allowlist) []any {
	out := []any{}
	for _, e := range a.Entries {
		if strings.TrimSpace(e.Reason) != "" {
			out = append(out, map[string]any{"kind": e.Kind, "what": e.What, "reason": e.Reason})
		}
	}
	return out
}

// allowlistEntries are input.allowlist_entries: every entry of the
// allowlist as written, reason or not, with its number and line, for the
// rule that holds the allowlist itself.
func allowlistEntries(a *Allowlist) []any {
	out := []any{}
	for i, e := range a.Entries {
		out = append(out, map[string]any{"n": i + 1, "line": e.Line, "kind": e.Kind, "what": e.What, "reason": strings.TrimSpace(e.Reason)})
	}
	return out
}

// statefulFacts are input.stateful: the reviewed reference StatefulFile
// (per environment, each stateful resource's type and the values of the
// properties it cannot change in place), as committed; none when absent.
func statefulFacts(root string) (map[string]any, error) {
	out := map[string]any{"file": StatefulFile, "environments": map[string]any{}}
	raw, err := os.ReadFile(filepath.Join(root, StatefulFile))
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err == nil {
		err = json.Unmarshal(raw, &out)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (regenerate it with %s)", StatefulFile, err, regenerate)
	}
	return out, nil
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
	maps.Copy(params, s.Params)
	declared, _ := doc["Parameters"].(map[string]any)
	if _, ok := declared[accessLogsParam]; ok && paramValue(e.app, accessLogsParam) == "off" {
		params[accessLogsParam] = "use-account-role"
	}
	if _, ok := declared[alarmTopicParam]; ok {
		params[alarmTopicParam] = cmp.Or(paramValue(e.app, alarmTopicParam), fmt.Sprintf("arn:%s:sns:%s:%s:preflight-alarms", s.Partition, s.Region, s.Account))
	}
	s.Params = params
	return samtemplate.Resolve(doc, s)
}

// paramValue is a parameter's value in the stack.
func paramValue(r *samtemplate.Resolved, name string) string {
	v, _ := r.Value(map[string]any{"Ref": name})
	return fmt.Sprint(v)
}
